/**
 * The watch's edges over a real socket, on a server whose trace has already dropped its oldest events:
 * a version older than what the trace holds is 410 Gone (reason Expired, the apiserver's message), the cap
 * on watches is 429, and a closing server ends every watch.
 */
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

let app: FastifyInstance;
let base: string;
let trace: TraceRecorder;

beforeEach(async () => {
  const clock = new FakeClock();
  trace = new TraceRecorder(clock, 50);
  for (let i = 0; i < 100; i++)
    trace.record({ type: 'server.start', version: 'test', runtime: 'simulated', endpoint: '' });
  app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace,
    clock,
    limits: { maxStreams: 2, maxStreamsPerAddress: 2 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterEach(async () => {
  await app.close();
});

describe('pod watch', () => {
  it('a version older than the trace holds is 410 Gone, reason Expired', async () => {
    const res = await fetch(`${base}/api/v1/pods?watch=true&resourceVersion=10`);
    expect(res.status).toBe(410);
    const body = (await res.json()) as { kind: string; reason: string; message: string };
    expect(body).toMatchObject({
      kind: 'Status',
      reason: 'Expired',
      message: 'too old resource version: 10 (50)',
    });
    // the oldest version held is still good
    const ok = await fetch(`${base}/api/v1/pods?watch=true&resourceVersion=50&timeoutSeconds=1`);
    expect(ok.status).toBe(200);
    await ok.text();
  });

  it('past the cap a watch is 429; closing the server ends the open ones', async () => {
    const a = await fetch(`${base}/api/v1/pods?watch=true`);
    const b = await fetch(`${base}/api/v1/namespaces/default/pods?watch=1`);
    expect([a.status, b.status]).toEqual([200, 200]);
    const c = await fetch(`${base}/api/v1/pods?watch=true`);
    expect(c.status).toBe(429);
    expect(((await c.json()) as { reason: string }).reason).toBe('TooManyRequests');
    const rest = Promise.all([a.text(), b.text()]);
    await app.close();
    expect(await rest).toEqual(['', '']);
  });

  it('a list answered without versions gets the newest seq as its resourceVersion', async () => {
    const res = await fetch(`${base}/api/v1/pods`);
    const list = (await res.json()) as { metadata: { resourceVersion?: string } };
    expect(list.metadata.resourceVersion).toBe(String(trace.next - 1));
  });
});
