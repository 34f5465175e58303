/**
 * /healthz says when part of the server has stopped: a trace listener (the journal, the pod store writer,
 * the metrics, the kubelet log writer) that throws is removed, so what it did stops; the server keeps serving
 * but reports itself degraded with what stopped, where and why.
 */
import { join } from 'node:path';
import { startSimNode } from '@syncscope/core';
import { RealClock } from '@syncscope/core/clock';
import { buildApp } from '@syncscope/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../support/server-process.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('/healthz', () => {
  it('answers ok, then degraded naming the part of the server that stopped', async () => {
    const dataDir = await tempDir('syncscope-health-', cleanups);
    const clock = new RealClock();
    const sim = await startSimNode({ socketPath: join(dataDir, 'node.sock'), clock });
    cleanups.push(() => sim.close());
    const built = await buildApp({ dataDir, examples: false, logger: false, clock, sim, warn: () => {} });
    cleanups.push(() => built.close());
    const health = async () => (await built.app.inject({ method: 'GET', url: '/healthz' })).body;
    expect(await health()).toBe('ok');

    vi.spyOn(console, 'error').mockImplementation(() => {});
    built.history.subscribe(() => {
      throw new Error('the disk went away');
    }, 'the metrics');
    const ev = built.trace.record({ type: 'sim.fault', fault: 'none', detail: 'a marker' });
    expect(await health()).toBe(
      `degraded: the metrics stopped at event seq ${ev.seq} (sim.fault): the disk went away`,
    );
    // the rest goes on: later events are still recorded and served
    const later = built.trace.record({ type: 'sim.fault', fault: 'none', detail: 'after' });
    const res = await built.app.inject({ method: 'GET', url: `/api/v1/trace?since=${ev.seq}` });
    expect(res.statusCode).toBe(200);
    expect(JSON.stringify(res.json())).toContain(`"seq":${later.seq}`);
  });
});
