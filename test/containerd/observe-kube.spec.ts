/**
 * Observe mode with a kubeconfig on a real containerd (a private one, scripts/containerd/up.sh): a managed
 * Syncscope runs pods on it and serves the Kubernetes API; a second one observes the same containerd and,
 * through the managed one's kubeconfig, watches the pods bound to the node. Every pod is seen from the API
 * before the runtime shows its sandbox, a graceful delete shows its deletionTimestamp and grace while the
 * containers still run, and the API server receives nothing from the observer but GET (list and watch).
 */
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { podUIDOf, type TraceEvent, type TraceOf } from '@syncscope/core/trace';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../apps/server/src/kube-api/kubeconfig.ts';
import { loadKubeconfig } from '../../apps/server/src/observe/kube-access.ts';
import { example, type Harness, startHarness } from '../support/harness.ts';
import { startObserver, type Watching, waitOn } from './observe-support.ts';

/** The test's own requests carry this header; every other one the API server receives is the observer's. */
const MINE = { 'x-test-client': '1' };

let ctd: PrivateContainerd;
let managed: Harness;
let observer: Watching;
const seen: { method: string; url: string }[] = [];

const of = <T extends TraceEvent['type']>(evs: readonly TraceEvent[], type: T) =>
  evs.filter((e): e is TraceOf<T> => e.type === type);
const observed = (uid: string) => observer.app.trace.since(0, (e) => podUIDOf(e) === uid);

async function apply(file: string, name: string): Promise<Pod> {
  const res = await fetch(`${managed.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml', ...MINE },
    body: (await example(file)).replace(/^ {2}name: \S+$/m, `  name: ${name}`),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Pod;
}

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-observe-kube-${process.pid}`);
  managed = await startHarness({ runtimeEndpoint: ctd.endpoint });
  managed.built.app.server.on('request', (req: IncomingMessage) => {
    if (req.headers['x-test-client'] === undefined)
      seen.push({ method: req.method ?? '', url: req.url ?? '' });
  });
  const kubeconfig = writeKubeconfig(managed.dataDir, { server: managed.base });
  observer = await startObserver(
    ctd.endpoint,
    join(managed.dataDir, 'kubelet.log'),
    loadKubeconfig(kubeconfig),
  );
}, 120_000);

afterAll(async () => {
  await observer?.close();
  await managed?.close();
  await ctd?.stop();
});

describe('observe mode with a kubeconfig on containerd', () => {
  it('sees every pod from the API before its sandbox, and a graceful delete with its grace', async () => {
    const pods = [await apply('healthy.yaml', 'kube-healthy'), await apply('crashloop.yaml', 'kube-crash')];
    const uids = pods.map((p) => p.metadata.uid as string);
    await waitOn(
      observer.app.trace,
      'both pods on the runtime',
      () => uids.every((u) => of(observed(u), 'pleg.event').length > 0),
      90_000,
    );
    for (const uid of uids) {
      const evs = observed(uid);
      const add = evs.findIndex((e) => e.type === 'config.update' && e.op === 'ADD' && e.source === 'api');
      const firstCri = evs.findIndex((e) => e.type === 'pleg.event' || e.type === 'runtime.call');
      expect(add).toBeGreaterThanOrEqual(0);
      expect(add).toBeLessThan(firstCri);
    }
    await managed.waitForPod(
      'default',
      'kube-healthy',
      'running',
      (p) => p.status?.phase === 'Running',
      60_000,
    );
    const res = await fetch(
      `${managed.base}/api/v1/namespaces/default/pods/kube-healthy?gracePeriodSeconds=5`,
      {
        method: 'DELETE',
        headers: MINE,
      },
    );
    expect(res.status).toBe(200);
    const deleted = (await res.json()) as Pod;
    const ops = () => of(observed(uids[0] as string), 'config.update');
    await waitOn(observer.app.trace, 'the API DELETE', () => ops().some((e) => e.op === 'DELETE'));
    expect(ops().find((e) => e.op === 'DELETE')).toMatchObject({
      gracePeriodS: 5,
      deletionTimestamp: deleted.metadata.deletionTimestamp,
    });
    expect(observer.app.observer.getPod('default', 'kube-healthy')?.metadata).toMatchObject({
      deletionTimestamp: deleted.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: 5,
    });
    await waitOn(observer.app.trace, 'REMOVE', () => ops().some((e) => e.op === 'REMOVE'), 60_000);
  }, 240_000);

  it('sends the API server nothing but GET of the node’s pods and of pod Events', () => {
    expect(seen.length).toBeGreaterThan(0);
    expect([...new Set(seen.map((s) => s.method))]).toEqual(['GET']);
    for (const s of seen)
      expect(['/api/v1/pods', '/api/v1/events']).toContain(new URL(s.url, 'http://x').pathname);
  });
});
