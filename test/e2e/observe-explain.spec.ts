/**
 * The model's reading of a pod seen only from the API, on the simulated node: a managed Syncscope is a kubelet
 * and an API server at once; a second one observes its runtime and, with the kubeconfig the first one's data
 * dir holds, watches its pods. A new pod reaches the observer from the API before its sandbox exists, and the
 * pod view's explanation (the pod's events as GET /api/v1/trace?podUID= gives them, read by the explainer the
 * web runs) reads that step as the sync it starts: no sandbox yet → create sandbox, in the words of the
 * managed engine's own plan for the pod, with what the source lacks said. A pod past the node's maxPods,
 * which never gets a sandbox, reads as refused at admission, with the reason the kubelet gave. A graceful
 * delete reads as the termination with the grace the API's DELETE gave.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { type ExplainedStep, explainTrace } from '@syncscope/core/explain';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { buildObserveApp, type ObservedApp } from '@syncscope/server/observe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../apps/server/src/kube-api/kubeconfig.ts';
import { loadKubeconfig } from '../../apps/server/src/observe/kube-access.ts';
import { example } from '../support/harness.ts';
import { waitOnTrace } from '../support/wait-trace.ts';

/** The pod's events as the pod view fetches them from the observer. */
async function podEvents(base: string, uid: string): Promise<TraceEvent[]> {
  const res = await fetch(`${base}/api/v1/trace?podUID=${uid}&limit=10000`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: TraceEvent[] }).items;
}

/** The pod's explained steps, as the pod view reads them. */
async function explained(base: string, uid: string): Promise<{ evs: TraceEvent[]; steps: ExplainedStep[] }> {
  const evs = await podEvents(base, uid);
  const pod = explainTrace(evs).pods.find((p) => p.uid === uid);
  return { evs, steps: pod?.steps ?? [] };
}

describe('the explanation of a pod seen from the API (simulated node)', () => {
  let managedDir: string;
  let observerDir: string;
  let m: BuiltApp;
  let mBase: string;
  let o: ObservedApp;
  let oBase: string;
  let uid: string;

  beforeAll(async () => {
    managedDir = await mkdtemp(join(tmpdir(), 'syncscope-explain-managed-'));
    observerDir = await mkdtemp(join(tmpdir(), 'syncscope-explain-observer-'));
    m = await buildApp({ dataDir: managedDir, examples: false, logger: false, config: { maxPods: 1 } });
    mBase = await m.app.listen({ port: 0, host: '127.0.0.1' });
    const kubeconfig = writeKubeconfig(managedDir, { server: mBase });
    o = await buildObserveApp({
      runtimeEndpoint: m.runtimeEndpoint,
      dataDir: observerDir,
      kube: loadKubeconfig(kubeconfig),
      logger: false,
      warn: () => {},
    });
    oBase = await o.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);

  afterAll(async () => {
    await o?.close();
    await m?.close();
    await rm(observerDir, { recursive: true, force: true });
    await rm(managedDir, { recursive: true, force: true });
  });

  it('reads the API ADD before the sandbox as the sandbox creation the sync will do', async () => {
    const res = await fetch(`${mBase}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: (await example('healthy.yaml')).replace('name: healthy', 'name: explain-api'),
    });
    expect(res.status).toBe(201);
    uid = ((await res.json()) as Pod).metadata.uid as string;
    await waitOnTrace(o.trace, 'the pod on the runtime', () =>
      o.trace.since(0, (e) => podUIDOf(e) === uid).some((e) => e.type === 'pleg.event'),
    );
    const { evs, steps } = await explained(oBase, uid);
    const add = evs.find((e) => e.type === 'config.update' && e.op === 'ADD');
    const firstRuntime = evs.find((e) => e.type === 'pleg.event');
    expect(
      add && firstRuntime && add.seq < firstRuntime.seq,
      'the ADD before the runtime shows the pod',
    ).toBe(true);
    const step = steps.find((s) => s.seq === add?.seq);
    expect(step).toMatchObject({ source: 'config ADD from api', verdict: 'agrees' });
    expect(step?.rule).toMatch(/^computePodActions: a pod with no sandbox gets a new one/);
    // the decision in the words of the managed engine's own plan for this pod's first sync
    const plan = m.trace
      .since(0, (e) => podUIDOf(e) === uid)
      .find((e) => e.type === 'sync.result' && e.plan !== undefined);
    const engineWords = plan?.type === 'sync.result' ? (plan.plan?.reasons[0] ?? '') : '';
    expect(engineWords).toMatch(/^no sandbox yet → create sandbox attempt 0; start app$/);
    const decides = step?.model.find((l) => l.startsWith('decides: '));
    expect(decides?.split(';')[0]).toBe(`decides: ${engineWords.split(';')[0]}`);
    // what the API's ADD does not carry, said with what stood in for it
    const assumed = step?.assumed?.join('\n') ?? '';
    expect(assumed).toMatch(/no sandbox or container of the pod in the source at this step/);
    expect(assumed).toMatch(/no pod spec in the source/);
  }, 90_000);

  it('reads a pod the node refuses at admission as rejected, never given a sandbox', async () => {
    const res = await fetch(`${mBase}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: (await example('healthy.yaml')).replace('name: healthy', 'name: explain-rejected'),
    });
    expect(res.status).toBe(201);
    const rejected = ((await res.json()) as Pod).metadata.uid as string;
    await waitOnTrace(o.trace, 'the API status Failed', () =>
      o.trace
        .since(0, (e) => podUIDOf(e) === rejected)
        .some((e) => e.type === 'status.update' && e.status.phase === 'Failed'),
    );
    const { evs, steps } = await explained(oBase, rejected);
    expect(evs.filter((e) => e.type === 'pleg.event' || e.type === 'runtime.call')).toEqual([]);
    const failed = evs.find((e) => e.type === 'status.update' && e.status.phase === 'Failed');
    const step = steps.find((s) => s.seq === failed?.seq);
    expect(step?.rule).toMatch(/^HandlePodAdditions: a pod canAdmitPod refuses is rejected \(rejectPod\)/);
    expect(step?.model[0]).toMatch(/^canAdmitPod refused the pod \(OutOfpods\): /);
  }, 90_000);

  it("reads a graceful delete as the kill within the grace the API's DELETE gave", async () => {
    const res = await fetch(`${mBase}/api/v1/namespaces/default/pods/explain-api?gracePeriodSeconds=17`, {
      method: 'DELETE',
    });
    expect(res.status).toBe(200);
    await waitOnTrace(o.trace, 'the API DELETE', () =>
      o.trace
        .since(0, (e) => podUIDOf(e) === uid)
        .some((e) => e.type === 'config.update' && e.op === 'DELETE' && e.gracePeriodS === 17),
    );
    const { evs, steps } = await explained(oBase, uid);
    const del = evs.find((e) => e.type === 'config.update' && e.op === 'DELETE' && e.gracePeriodS === 17);
    const step = steps.find((s) => s.seq === del?.seq);
    expect(step).toMatchObject({
      source: 'config DELETE from api, grace 17s',
      verdict: 'agrees',
      rule: 'SyncTerminatingPod: every container is stopped within the grace period',
    });
    expect(step?.model).toContain(
      'SyncTerminatingPod: stop every container within 17s, the grace the DELETE gave (deletionGracePeriodSeconds)',
    );
  }, 90_000);
});
