/**
 * The model beside the engine on the simulated node: two servers (buildApp, the simulated node over gRPC,
 * its clock sped up) each run a crash-looping pod and write their kubelet.log. The log of the one with the
 * kubelet's defaults, explained, agrees at every back-off window and restart; the log of the one started
 * with maxContainerBackOff 20s, posted to the other as an import and explained by GET
 * /api/v1/imports/{id}/explain under the defaults, differs at exactly the windows past 20s and the
 * restarts after them. Elsewhere the only difference the model may mark is the engine's extra failed sync
 * within a window's requeue ("duplicate-sync"), which the kubelet does not make.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExplainedStep, explainTrace, type SourceExplanation } from '@syncscope/core/explain';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { TraceOf } from '@syncscope/core/trace';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { afterAll, describe, expect, it } from 'vitest';
import { example } from '../support/harness.ts';
import { waitOnTrace } from '../support/wait-trace.ts';

/** sped up, but not so far that a loaded machine's milliseconds become the model's seconds */
const SPEED = 5;
const POD = 'default/crashloop';

interface Node {
  built: BuiltApp;
  base: string;
  dataDir: string;
}
const nodes: Node[] = [];
afterAll(async () => {
  for (const n of nodes) {
    await n.built.close().catch(() => {});
    await rm(n.dataDir, { recursive: true, force: true });
  }
});

async function start(maxContainerBackOffMs?: number): Promise<Node> {
  const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-explain-'));
  const built = await buildApp({
    dataDir,
    examples: false,
    logger: false,
    ...(maxContainerBackOffMs ? { config: { maxContainerBackOffMs } } : {}),
  });
  const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const n = { built, base, dataDir };
  nodes.push(n);
  const speed = await fetch(`${base}/api/v1/sim/speed`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ speed: SPEED }),
  });
  expect(speed.status).toBe(200);
  const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: await example('crashloop.yaml'),
  });
  expect(res.status).toBe(201);
  return n;
}

/** The container back-off windows the engine's trace holds: one delay per window end. */
function windows(n: Node): number[] {
  const ends = new Map<number, number>();
  for (const e of n.built.trace.since(0, (e) => e.type === 'backoff')) {
    const b = e as TraceOf<'backoff'>;
    if (b.kind === 'container') ends.set(b.until, b.delayS);
  }
  return [...ends.values()];
}

const isWindow = (s: ExplainedStep) =>
  s.source.startsWith('container back-off') && /^window \d+/.test(s.model[0] ?? '');
const isRestart = (s: ExplainedStep) => /restarted .* after its death/.test(s.model[0] ?? '');
const podSteps = (x: SourceExplanation) => x.pods.find((p) => p.pod === POD)?.steps ?? [];

describe('the engine beside the kubelet on the simulated node', () => {
  it('its own log agrees at every back-off step; one with maxContainerBackOff 20s differs at exactly those past it', async () => {
    const [std, capped] = await Promise.all([start(), start(20_000)]);
    const enough = (n: Node, k: number) => () => windows(n).length >= k;
    await Promise.all([
      waitOnTrace(std.built.trace, 'four back-off windows', enough(std, 4), 100_000),
      waitOnTrace(capped.built.trace, 'five back-off windows', enough(capped, 5), 100_000),
    ]);
    // the capped engine's log: closed (its close writes what is queued), posted to the other, explained there
    await capped.built.close();
    expect(windows(capped).slice(0, 5)).toEqual([10, 20, 20, 20, 20]);
    const cappedLog = await readFile(join(capped.dataDir, 'kubelet.log'), 'utf8');
    const post = await fetch(`${std.base}/api/v1/imports?name=capped.log`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: cappedLog,
    });
    expect(post.status).toBe(201);
    const { id } = (await post.json()) as { id: string };
    const res = await fetch(`${std.base}/api/v1/imports/${id}/explain?steps=all`);
    expect(res.status).toBe(200);
    const x = (await res.json()) as SourceExplanation;
    const steps = podSteps(x);
    const ws = steps.filter(isWindow);
    expect(ws.map((s) => s.verdict)).toEqual(ws.map((_, i) => (i < 2 ? 'agrees' : 'differs')));
    expect(ws[2]?.difference).toEqual({
      kind: 'backoff-delay',
      expected: 'back-off 40s',
      seen: 'back-off 20s',
    });
    const windowSeqs = ws.map((s) => s.seq);
    for (const s of steps.filter(isRestart)) {
      const after = windowSeqs.filter((q) => q < s.seq).length;
      expect([s.verdict, s.difference?.kind], s.model[0]).toEqual(
        after >= 3 ? ['differs', 'restart-early'] : ['agrees', undefined],
      );
    }
    // besides: only the engine's extra sync in a window (a second failed sync within the requeue, which the
    // kubelet does not make), which the model marks as such
    const others = steps.filter((s) => s.verdict === 'differs' && !isWindow(s) && !isRestart(s));
    for (const s of others) expect(s.difference?.kind, s.source).toBe('duplicate-sync');

    // the engine with the kubelet's defaults: its own log, read back, agrees throughout
    await std.built.close();
    const w = windows(std);
    expect(w.slice(0, 4)).toEqual([10, 20, 40, 80]);
    const text = await readFile(join(std.dataDir, 'kubelet.log'), 'utf8');
    const year = new Date().getUTCFullYear();
    const own = explainTrace(importKubeletLog(text, { year }).events);
    const mine = podSteps(own);
    expect(mine.filter(isWindow).map((s) => [s.verdict, (s.backoffMs ?? 0) / 1000])).toEqual(
      w.map((d) => ['agrees', d]),
    );
    expect(mine.filter(isRestart).length).toBeGreaterThanOrEqual(w.length);
    for (const s of mine.filter(isRestart)) expect(s.verdict, s.model[0]).toBe('agrees');
    for (const s of mine.filter((s) => s.verdict === 'differs'))
      expect(s.difference?.kind, s.source).toBe('duplicate-sync');
  }, 180_000);
});
