/**
 * Observe mode with a kubeconfig, on the simulated node: a managed Syncscope is a kubelet and an API server at
 * once; a second one observes its runtime and, through the kubeconfig the first one's data dir holds, watches
 * the pods bound to its node and their Events, as the kubelet's config source does. Every managed pod is seen
 * from the API before the runtime shows it (and shown as the API has it meanwhile), a pod the node rejects at
 * admission is shown with the API's Failed status, a graceful delete shows its deletionTimestamp and grace,
 * and the API server receives nothing from the observer but GET requests of list and watch.
 * The same with a token over https (the kubeconfig's token and CA), and without a kubeconfig as before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { podUIDOf, type TraceEvent, type TraceOf } from '@syncscope/core/trace';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { closeTls, ensureServingCert, listenTls } from '@syncscope/server/kube-api/kube-tls';
import { buildObserveApp, type ObservedApp } from '@syncscope/server/observe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../apps/server/src/kube-api/kubeconfig.ts';
import { loadKubeconfig } from '../../apps/server/src/observe/kube-access.ts';
import { example } from '../support/harness.ts';
import { waitOnTrace } from '../support/wait-trace.ts';

/** Requests the test itself sends carry this header; every other one the API server receives is the observer's. */
const MINE = { 'x-test-client': '1' };
const TOKEN = 'observe-kube-e2e-token-0123456789';

interface Seen {
  method: string;
  url: string;
}

const of = <T extends TraceEvent['type']>(evs: readonly TraceEvent[], type: T) =>
  evs.filter((e): e is TraceOf<T> => e.type === type);

/** Records into `seen` every request a server receives but the test's own. */
function recordRequests(server: Server, seen: Seen[]): void {
  server.on('request', (req: IncomingMessage) => {
    if (req.headers['x-test-client'] === undefined)
      seen.push({ method: req.method ?? '', url: req.url ?? '' });
  });
}

/** Only list, watch and get: GET of the pods bound to the node, and of pod Events. */
function expectReadOnly(seen: readonly Seen[], node: string): void {
  expect(seen.length).toBeGreaterThan(0);
  expect([...new Set(seen.map((s) => s.method))]).toEqual(['GET']);
  for (const s of seen) {
    const u = new URL(s.url, 'http://x');
    expect(['/api/v1/pods', '/api/v1/events']).toContain(u.pathname);
  }
  const watches = seen
    .map((s) => new URL(s.url, 'http://x'))
    .filter((u) => u.searchParams.get('watch') === 'true');
  expect(
    watches.some(
      (u) => u.pathname === '/api/v1/pods' && u.searchParams.get('fieldSelector') === `spec.nodeName=${node}`,
    ),
  ).toBe(true);
}

interface Managed {
  built: BuiltApp;
  base: string;
  dir: string;
  seen: Seen[];
  kubeconfig: string;
  close(): Promise<void>;
}

async function startManaged(token?: string): Promise<Managed> {
  const dir = await mkdtemp(join(tmpdir(), 'syncscope-kube-managed-'));
  const built = await buildApp({
    dataDir: dir,
    examples: false,
    logger: false,
    config: { maxPods: 3 },
    ...(token ? { token } : {}),
  });
  const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const seen: Seen[] = [];
  recordRequests(built.app.server, seen);
  let kubeconfig: string;
  let tls: Awaited<ReturnType<typeof listenTls>> | undefined;
  if (token) {
    const cert = ensureServingCert(dir, '127.0.0.1');
    tls = await listenTls(built.app, cert, '127.0.0.1', 0);
    const addr = tls.address();
    const port = typeof addr === 'object' && addr ? addr.port : 0;
    recordRequests(tls as unknown as Server, seen);
    kubeconfig = writeKubeconfig(dir, { server: `https://127.0.0.1:${port}`, token, caCert: cert.cert });
  } else kubeconfig = writeKubeconfig(dir, { server: base });
  return {
    built,
    base,
    dir,
    seen,
    kubeconfig,
    async close() {
      if (tls) await closeTls(tls);
      await built.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function startObserver(
  m: Managed,
  withKube: boolean,
): Promise<{ app: ObservedApp; base: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'syncscope-kube-observer-'));
  const app = await buildObserveApp({
    runtimeEndpoint: m.built.runtimeEndpoint,
    dataDir: dir,
    ...(withKube ? { kube: loadKubeconfig(m.kubeconfig) } : {}),
    logger: false,
    warn: () => {},
  });
  const base = await app.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    base,
    async close() {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function apply(m: Managed, manifest: string, name: string): Promise<Pod> {
  const res = await fetch(`${m.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml', ...MINE },
    body: manifest.replace(/^ {2}name: \S+$/m, `  name: ${name}`),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Pod;
}

describe('observe mode with a kubeconfig (simulated node)', () => {
  let m: Managed;
  let o: Awaited<ReturnType<typeof startObserver>>;
  /** Per pod: what the observer showed when the API's ADD was recorded. */
  const atAdd = new Map<string, { onRuntime: boolean; shown: Pod | undefined }>();

  beforeAll(async () => {
    m = await startManaged();
    o = await startObserver(m, true);
    o.app.trace.subscribe((ev) => {
      if (ev.type !== 'config.update' || ev.op !== 'ADD') return;
      atAdd.set(ev.podUID, {
        onRuntime: o.app.observer.onRuntime(ev.podUID),
        shown: o.app.observer.getPodByUID(ev.podUID),
      });
    });
  }, 60_000);

  afterAll(async () => {
    await o?.close();
    await m?.close();
  });

  it('sees every managed pod from the API before its sandbox, and a rejected one as the API has it', async () => {
    const manifests = [
      [await example('healthy.yaml'), 'api-healthy'],
      [await example('crashloop.yaml'), 'api-crash'],
      [await example('completes.yaml'), 'api-done'],
      [await example('healthy.yaml'), 'api-rejected'], // past maxPods 3: OutOfpods, never a sandbox
    ] as const;
    const pods: Pod[] = [];
    for (const [y, name] of manifests) pods.push(await apply(m, y, name));
    const uids = pods.map((p) => p.metadata.uid as string);
    const mine = (uid: string) => o.app.trace.since(0, (e) => podUIDOf(e) === uid);
    // the three admitted pods: the runtime shows them; the rejected one: the API's Failed status
    await waitOnTrace(o.app.trace, 'the admitted pods on the runtime, the rejected one Failed', () => {
      const admitted = uids.slice(0, 3).every((u) => of(mine(u), 'pleg.event').length > 0);
      const rejected = of(mine(uids[3] as string), 'status.update').some((s) => s.status.phase === 'Failed');
      return admitted && rejected;
    });
    for (const [i, uid] of uids.entries()) {
      const evs = mine(uid);
      const add = evs.findIndex((e) => e.type === 'config.update' && e.op === 'ADD');
      const firstCri = evs.findIndex((e) => e.type === 'pleg.event' || e.type === 'runtime.call');
      expect(add, `${pods[i]?.metadata.name}: an API ADD`).toBeGreaterThanOrEqual(0);
      if (i < 3) expect(add, `${pods[i]?.metadata.name}: ADD before the runtime`).toBeLessThan(firstCri);
      else expect(firstCri).toBe(-1);
      expect(of(evs, 'config.update')[0]).toMatchObject({
        op: 'ADD',
        source: 'api',
        pod: `default/${pods[i]?.metadata.name}`,
      });
      // when the ADD came, the runtime did not show the pod, and the observer showed the API's pod
      expect(atAdd.get(uid)?.onRuntime).toBe(false);
      expect(atAdd.get(uid)?.shown?.spec.containers[0]?.command).toEqual(
        pods[i]?.spec.containers[0]?.command,
      );
    }
    const rejected = (await (
      await fetch(`${o.base}/api/v1/namespaces/default/pods/api-rejected`)
    ).json()) as Pod;
    expect(rejected.status).toMatchObject({ phase: 'Failed', reason: 'OutOfpods' });
    expect(rejected.metadata.annotations?.['syncscope.io/observed']).toBe('true');
    // the API's Events about the pods join the trace
    await waitOnTrace(o.app.trace, 'the Started Event of api-healthy', () =>
      of(mine(uids[0] as string), 'k8s.event').some((e) => e.reason === 'Started'),
    );
  }, 90_000);

  it("shows a graceful delete's deletionTimestamp and grace from the API's DELETE", async () => {
    const uid = o.app.observer.getPod('default', 'api-healthy')?.metadata.uid as string;
    const res = await fetch(`${m.base}/api/v1/namespaces/default/pods/api-healthy?gracePeriodSeconds=17`, {
      method: 'DELETE',
      headers: MINE,
    });
    expect(res.status).toBe(200);
    const deleted = (await res.json()) as Pod;
    const mine = () =>
      of(
        o.app.trace.since(0, (e) => podUIDOf(e) === uid),
        'config.update',
      );
    await waitOnTrace(o.app.trace, 'the API DELETE', () => mine().some((e) => e.op === 'DELETE'));
    const del = mine().find((e) => e.op === 'DELETE');
    expect(del).toMatchObject({
      source: 'api',
      gracePeriodS: 17,
      deletionTimestamp: deleted.metadata.deletionTimestamp,
    });
    const shown = (await (await fetch(`${o.base}/api/v1/namespaces/default/pods/api-healthy`)).json()) as Pod;
    expect(shown.metadata).toMatchObject({
      deletionTimestamp: deleted.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: 17,
    });
    // the kubelet ends it: the final delete (grace 0), then the object is gone
    await waitOnTrace(o.app.trace, 'REMOVE', () => mine().some((e) => e.op === 'REMOVE'), 60_000);
    expect(mine().map((e) => [e.op, e.gracePeriodS])).toContainEqual(['DELETE', 0]);
  }, 90_000);

  it('sends the API server nothing but GET (list and watch)', () => {
    expectReadOnly(m.seen, m.built.engine.nodeInfo().nodeName);
  });
});

describe('observe mode with a token kubeconfig over https', () => {
  it('lists and watches with the bearer token and the CA the kubeconfig holds', async () => {
    const m = await startManaged(TOKEN);
    const o = await startObserver(m, true);
    try {
      const res = await fetch(`${m.base}/api/v1/namespaces/default/pods`, {
        method: 'POST',
        headers: { 'content-type': 'application/yaml', authorization: `Bearer ${TOKEN}`, ...MINE },
        body: (await example('healthy.yaml')).replace('name: healthy', 'name: tls-pod'),
      });
      expect(res.status).toBe(201);
      const uid = ((await res.json()) as Pod).metadata.uid as string;
      await waitOnTrace(
        o.app.trace,
        'the API ADD over https',
        () => o.app.trace.since(0, (e) => e.type === 'config.update' && podUIDOf(e) === uid).length > 0,
      );
      expectReadOnly(m.seen, m.built.engine.nodeInfo().nodeName);
    } finally {
      await o.close();
      await m.close();
    }
  }, 60_000);
});

describe('observe mode without a kubeconfig', () => {
  it('sends the API server nothing and sees the pod from the runtime only', async () => {
    const m = await startManaged();
    const o = await startObserver(m, false);
    try {
      const uid = (await apply(m, await example('healthy.yaml'), 'no-api')).metadata.uid as string;
      const mine = () => o.app.trace.since(0, (e) => podUIDOf(e) === uid);
      await waitOnTrace(o.app.trace, 'the pod on the runtime', () => of(mine(), 'pleg.event').length > 0);
      expect(of(mine(), 'config.update')).toEqual([]);
      expect(m.seen).toEqual([]);
    } finally {
      await o.close();
      await m.close();
    }
  }, 60_000);
});
