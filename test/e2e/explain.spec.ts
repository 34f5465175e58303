/**
 * The model beside the engine on the simulated node: two servers (buildApp, the simulated node over gRPC,
 * its clock sped up) each run a crash-looping pod and write their kubelet.log. The log of the one with the
 * kubelet's defaults, explained, agrees at every back-off window and restart; the log of the one started
 * with maxContainerBackOff 20s, posted to the other as an import and explained by GET
 * /api/v1/imports/{id}/explain under the defaults, differs at exactly the windows past 20s and the
 * restarts after them. The checks are the ones containerd runs too (../scenarios/explain-roundtrip.ts).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explainTrace, type LogExplanation, type SourceExplanation } from '@syncscope/core/explain';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { afterAll, describe, expect, it } from 'vitest';
import {
  containerWindows,
  crashLoopPod,
  expectAgreesThroughout,
  expectDiffersPastCap,
} from '../scenarios/explain-roundtrip.ts';
import { waitOnTrace } from '../support/wait-trace.ts';

/** sped up, but not so far that a loaded machine's milliseconds become the model's seconds */
const SPEED = 2;
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
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(crashLoopPod('crashloop')),
  });
  expect(res.status).toBe(201);
  return n;
}

/** The container back-off windows the engine's trace holds: one delay per window end. */
const windows = (n: Node): number[] => containerWindows(n.built.trace.since(0, (e) => e.type === 'backoff'));

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
    // one kubelet's log: one node
    const x = ((await res.json()) as LogExplanation).nodes[0] as SourceExplanation;
    expectDiffersPastCap(x, POD, windows(capped), { initialS: 10, maxS: 300 }, capped.built.trace.since(0));

    // the engine with the kubelet's defaults: its own log, read back, agrees throughout
    await std.built.close();
    const w = windows(std);
    expect(w.slice(0, 4)).toEqual([10, 20, 40, 80]);
    const text = await readFile(join(std.dataDir, 'kubelet.log'), 'utf8');
    const year = new Date().getUTCFullYear();
    const own = explainTrace(importKubeletLog(text, { year }).events);
    expectAgreesThroughout(own, POD, w, std.built.trace.since(0));
  }, 180_000);
});
