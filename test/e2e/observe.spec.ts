/**
 * Observe mode beside a managed instance, on the simulated node: one Syncscope runs pods (managed mode), a
 * second watches the same runtime read-only (buildObserveApp, real gRPC to the node's socket, real HTTP).
 * The observer lists the pods as v1 Pods, sees the same PLEG events, infers the back-off the manager applies,
 * refuses every write with a 403 Status and never makes a mutating CRI call.
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod, PodList } from '@syncscope/core/api/v1';
import { podUIDOf, type TraceEvent, type TraceOf } from '@syncscope/core/trace';
import { buildObserveApp, type ObservedApp } from '@syncscope/server/observe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { example, type Harness, startHarness } from '../support/harness.ts';
import { expectSamePlegStory, settledEvents } from '../support/pleg-agreement.ts';

let managed: Harness;
let observed: ObservedApp;
let base: string;
let dir: string;
let kubeletLog: string;

function waitTrace(what: string, pred: () => boolean, timeoutMs = 45_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pred()) return resolve();
    const timer = setTimeout(() => {
      off();
      const recent = observed.trace
        .since(0, (e) => e.type !== 'runtime.call' && e.type !== 'pleg.relist')
        .slice(-30)
        .map((e) => JSON.stringify(e).slice(0, 300));
      reject(new Error(`timed out waiting for ${what}; the observer's trace:\n${recent.join('\n')}`));
    }, timeoutMs);
    const off = observed.trace.subscribe(() => {
      if (!pred()) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

const of = <T extends TraceEvent['type']>(evs: TraceEvent[], type: T) =>
  evs.filter((e): e is TraceOf<T> => e.type === type);

beforeAll(async () => {
  managed = await startHarness();
  dir = await mkdtemp(join(tmpdir(), 'syncscope-observe-'));
  kubeletLog = join(dir, 'kubelet.log');
  await writeFile(kubeletLog, '');
  observed = await buildObserveApp({
    runtimeEndpoint: managed.built.runtimeEndpoint,
    dataDir: dir,
    kubeletLog: { file: kubeletLog },
    logger: false,
    warn: () => {},
  });
  await observed.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = observed.app.server.address();
  if (typeof addr !== 'object' || !addr) throw new Error('no address');
  base = `http://127.0.0.1:${addr.port}`;
});

afterAll(async () => {
  await observed?.close();
  await managed?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('observe mode on the simulated node', () => {
  it('shows a crash-looping pod of the managed instance, its PLEG events and its inferred back-off', async () => {
    const pod = await managed.apply(await example('crashloop.yaml'));
    const uid = pod.metadata.uid as string;
    const mine = () => observed.trace.since(0, (e) => podUIDOf(e) === uid);
    await waitTrace('an inferred back-off window', () => of(mine(), 'backoff').some((b) => b.inferred));

    const res = await fetch(`${base}/api/v1/pods`);
    expect(res.status).toBe(200);
    const list = (await res.json()) as PodList;
    const seen = list.items.find((p) => p.metadata.uid === uid) as Pod;
    expect(seen.metadata).toMatchObject({
      name: 'crashloop',
      namespace: 'default',
      annotations: { 'syncscope.io/observed': 'true', 'syncscope.io/owner': 'syncscope' },
    });
    const one = (await (await fetch(`${base}/api/v1/namespaces/default/pods/crashloop`)).json()) as Pod;
    expect(one.metadata.uid).toBe(uid);
    expect(one.status?.containerStatuses?.[0]?.restartCount).toBeGreaterThanOrEqual(1);
    expect(one.status?.podIP).toBeTruthy();

    // the same PLEG events as the manager's, per container in the same order, each in the relists that
    // could have seen it, for what both have had time to see
    const relists = (trace: { since(after: number, f: (e: TraceEvent) => boolean): TraceEvent[] }) =>
      trace.since(0, (e) => e.type === 'pleg.relist');
    const manager = () => ({ events: managed.podTrace(uid), relists: relists(managed.built.trace) });
    const observer = () => ({ events: mine(), relists: relists(observed.trace) });
    await waitTrace('three PLEG events the manager has had its chance to list', () => {
      return settledEvents(observer(), manager()) >= 3;
    });
    expectSamePlegStory(manager(), observer(), { atLeast: 3 });

    // the windows the manager holds the container for are the ones inferred: wait for one the two agree on
    // (same exit, so the same end, and the same delay)
    const matched = () => {
      const actual = of(managed.podTrace(uid), 'backoff');
      return of(mine(), 'backoff').find(
        (b) =>
          b.inferred && actual.some((a) => Math.abs(b.until - a.until) <= 1_000 && a.delayS === b.delayS),
      );
    };
    await waitTrace(
      "an inferred window ending with one of the manager's, with its delay",
      () => matched() !== undefined,
      90_000,
    );
    expect(matched()?.delayS).toBeGreaterThanOrEqual(10);
  }, 150_000);

  it('refuses every write with a 403 Status and makes no mutating CRI call', async () => {
    const post = await fetch(`${base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/yaml' },
      body: await example('healthy.yaml'),
    });
    expect(post.status).toBe(403);
    expect(await post.json()).toMatchObject({
      kind: 'Status',
      code: 403,
      reason: 'Forbidden',
      message: 'observe mode: this server does not change the node',
    });
    const del = await fetch(`${base}/api/v1/namespaces/default/pods/crashloop`, { method: 'DELETE' });
    expect(del.status).toBe(403);
    expect((await fetch(`${base}/api/v1/sim/faults`, { method: 'POST', body: '{}' })).status).toBe(403);
    // the pod is still there, on the manager and on the runtime
    expect(managed.built.engine.getPod('default', 'crashloop')?.metadata.deletionTimestamp).toBeUndefined();
    expect(observed.cri.refused.size).toBe(0);
    const made = [...observed.cri.calls.keys()].sort();
    expect(made.every((m) => /^(Version|Status|List\w+|\w+Status|GetContainerEvents)$/.test(m))).toBe(true);
    const node = (await (await fetch(`${base}/api/v1/node`)).json()) as { observing?: string };
    expect(node.observing).toBe(managed.built.runtimeEndpoint);
  });

  it("confirms a back-off window the kubelet's log states, for the pod it names (--kubelet-log)", async () => {
    const pod = await managed.apply(
      await example('crashloop.yaml').then((y) => y.replace('name: crashloop', 'name: logged')),
    );
    const uid = pod.metadata.uid as string;
    const mine = () => observed.trace.since(0, (e) => podUIDOf(e) === uid);
    await waitTrace('the pod observed', () => of(mine(), 'pleg.event').length > 0);
    const msg = `back-off 40s restarting failed container=app pod=logged_default(${uid})`;
    const err = `failed to "StartContainer" for "app" with CrashLoopBackOff: "${msg}"`.replace(/"/g, '\\"');
    await appendFile(
      kubeletLog,
      `E1123 15:00:00.000000    4242 pod_workers.go:1301] "Error syncing pod, skipping" err="${err}" pod="default/logged" podUID="${uid}"\n`,
    );
    await waitTrace('a confirmed back-off of 40s', () =>
      of(mine(), 'backoff').some((b) => b.confirmed === true && b.delayS === 40 && b.container === 'app'),
    );
    // the sync error the line carries joins the live trace too
    expect(of(mine(), 'sync.result').some((r) => (r.error ?? '').includes('back-off 40s'))).toBe(true);
  });
});
