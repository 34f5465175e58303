/**
 * GET /api/v1/imports/{id}/explain over real kubelet logs posted to the server: the per-log summary, one
 * pod's steps with the back-off window read by its rule, a copy with an edited delay marked "differs" at
 * that line, a journal of several kubelets explained node by node, and the refusals (a bad ?steps= or
 * ?node=, an unknown id).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExplainCounts } from '@syncscope/core/explain';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importsApp } from './imports-testing.ts';

const SAMPLE = readFileSync(
  new URL(
    '../../../../packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    import.meta.url,
  ),
  'utf8',
);
/**
 * Seven kubelets in one journal, made only of the real lines of the samples (packages/core/src/pod-state/
 * testdata/README.md): 03's master as `master-0` whole and its first 637 lines again as `master-1`, so the
 * static cluster-version-operator pod runs on both masters under one UID.
 */
const FLEET = readFileSync(
  new URL('../../../../packages/core/src/pod-state/testdata/fleet.log', import.meta.url),
  'utf8',
);
const CVO_UID = 'aba1776703037ea02e532541162536e2';
const CVO = 'openshift-cluster-version/bootstrap-cluster-version-operator-localhost.localdomain';

interface Pod {
  uid: string;
  pod: string;
  counts: ExplainCounts;
  steps: { line?: number; source: string; verdict: string; model: string[] }[];
}
interface Node {
  node: string;
  params: Record<string, unknown>;
  counts: ExplainCounts;
  pods: Pod[];
}
interface Explained {
  id: string;
  name: string;
  counts: ExplainCounts;
  nodes: Node[];
}
const pods = (b: Explained): Pod[] => b.nodes.flatMap((n) => n.pods);

let dir: string;
let app: FastifyInstance;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-explain-'));
  app = await importsApp(dir);
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(text: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/imports?name=kubelet.log',
    headers: { 'content-type': 'text/plain' },
    payload: text,
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string }>().id;
}
const get = (url: string) => app.inject({ method: 'GET', url });

describe('GET /api/v1/imports/{id}/explain', () => {
  it('sums up the log and lists no difference for the kubelet’s own log', async () => {
    const id = await post(SAMPLE);
    const res = await get(`/api/v1/imports/${id}/explain`);
    expect(res.statusCode).toBe(200);
    const body = res.json<Explained>();
    expect(body.nodes.map((n) => n.node)).toEqual(['localhost.localdomain']);
    const [node] = body.nodes as [Node];
    expect(node.params).toMatchObject({ initialBackOffS: 10, maxBackOffS: 300, resetS: 600 });
    expect(body.counts).toMatchObject({ differs: 0, backoffWindows: 1, backoffWindowsAgreeing: 1 });
    expect(body.counts.explained + body.counts.unexplained).toBe(body.counts.steps);
    expect(node.counts).toEqual(body.counts);
    expect(node.pods.length).toBe(8);
    // by default only the differing steps are listed: none here
    expect(pods(body).flatMap((p) => p.steps)).toEqual([]);
  });

  it("gives one pod's steps with ?pod=: the back-off line (637) read by the ladder", async () => {
    const id = await post(SAMPLE);
    const body = (await get(`/api/v1/imports/${id}/explain?pod=${CVO_UID}`)).json<Explained>();
    expect(pods(body).map((p) => p.uid)).toEqual([CVO_UID]);
    const window = pods(body)[0]?.steps.find((s) => s.line === 637 && /back-off/.test(s.source));
    expect(window).toMatchObject({ verdict: 'agrees', backoffMs: 10_000 });
    expect(window?.model[0]).toMatch(/^window 1: in back-off 10s until 05:00:24/);
  });

  it('marks an edited delay "differs" at its line, with both values', async () => {
    const id = await post(SAMPLE.replace('back-off 10s restarting', 'back-off 40s restarting'));
    const body = (await get(`/api/v1/imports/${id}/explain?steps=differs`)).json<Explained>();
    const differs = pods(body).flatMap((p) => p.steps);
    expect(differs).toEqual([
      expect.objectContaining({
        line: 637,
        verdict: 'differs',
        difference: { kind: 'backoff-delay', expected: 'back-off 10s', seen: 'back-off 40s' },
      }),
    ]);
    expect(body.counts.differs).toBe(1);
  });

  it('explains a journal of several kubelets node by node: the static pod on two masters is two pods', async () => {
    const id = await post(FLEET);
    const body = (await get(`/api/v1/imports/${id}/explain?steps=none`)).json<Explained>();
    expect(body.nodes.map((n) => n.node)).toEqual([
      'sanji',
      'aks-agentpool-57418505-vmss000000',
      'master-0',
      'master-1',
      'prod-k8s-node',
      'pid 3312',
      'pid 4601',
    ]);
    // the operator on each master with its own steps: master-1's log stops at its first back-off line
    const cvo = body.nodes.flatMap((n) =>
      n.pods.filter((p) => p.pod === CVO).map((p) => [n.node, p] as const),
    );
    expect(cvo.map(([n, p]) => [n, p.uid, p.counts.steps])).toEqual([
      ['master-0', CVO_UID, 30],
      ['master-1', CVO_UID, 15],
    ]);
    expect(cvo.map(([, p]) => p.counts.backoffWindows)).toEqual([1, 1]);
    for (const n of body.nodes) expect(n.params).toMatchObject({ initialBackOffS: 10, maxBackOffS: 300 });
    const sum = body.nodes.reduce((k, n) => k + n.counts.steps, 0);
    expect(body.counts.steps).toBe(sum);
    expect(pods(body).flatMap((p) => p.steps)).toEqual([]);
  });

  it('gives the pod of each node that ran it with ?pod=, and one node with ?node=', async () => {
    const id = await post(FLEET);
    const byPod = (await get(`/api/v1/imports/${id}/explain?pod=${CVO_UID}`)).json<Explained>();
    expect(byPod.nodes.map((n) => [n.node, n.pods.map((p) => p.steps.length)])).toEqual([
      ['master-0', [30]],
      ['master-1', [15]],
    ]);
    expect(byPod.counts.steps).toBe(45);
    // the same back-off line read on each master, by its own kubelet's ladder
    for (const n of byPod.nodes)
      expect(n.pods[0]?.steps.filter((s) => /back-off 10s/.test(s.source)).map((s) => s.verdict)).toEqual([
        'agrees',
      ]);
    const one = (await get(`/api/v1/imports/${id}/explain?node=master-1&steps=none`)).json<Explained>();
    expect(one.nodes.map((n) => n.node)).toEqual(['master-1']);
    expect(one.nodes[0]?.pods.find((p) => p.pod === CVO)?.counts.steps).toBe(15);
    expect(one.counts).toEqual(one.nodes[0]?.counts);
  });

  it('refuses a bad ?steps= or ?node= with 400 naming it, and an unknown id with 404', async () => {
    const id = await post(SAMPLE);
    const bad = await get(`/api/v1/imports/${id}/explain?steps=some`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ kind: 'Status', code: 400 });
    expect(bad.json().message).toMatch(/steps/);
    const badNode = await get(`/api/v1/imports/${id}/explain?node=${encodeURIComponent('a/b')}`);
    expect(badNode.statusCode).toBe(400);
    expect(badNode.json().message).toMatch(/node/);
    const missing = await get('/api/v1/imports/AAAAAAAAAAAAAAAAAAAAAA/explain');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ reason: 'NotFound' });
  });
});
