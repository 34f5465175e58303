/**
 * Other clients' habits against the real server process: @kubernetes/client-node reading the kubeconfig the
 * server writes, as its users load one; the Python client's way of creating a pod (a body without apiVersion
 * and kind) and its trailing-slash paths, sent as raw HTTP; and kubectl's debug, port-forward and cp, which
 * this server does not serve, ending in a message kubectl prints rather than a crash (exec it serves).
 */
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Kubectl, podManifest, startKubectl } from './kubectl-run.ts';

const cleanups: (() => Promise<void>)[] = [];
let k: Kubectl;

beforeAll(async () => {
  k = await startKubectl(cleanups);
  const res = await fetch(`${k.server.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: podManifest('target'),
  });
  expect(res.status).toBe(201);
  // port-forward and attach look at the pod's phase before they ask for the stream
  await k.ok(['wait', '--for=condition=Ready', 'pod/target', '--timeout=60s']);
}, 90_000);

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('@kubernetes/client-node', () => {
  it('lists pods through the kubeconfig the server wrote', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(k.kubeconfig);
    const api = kc.makeApiClient(CoreV1Api);
    const list = await api.listNamespacedPod({ namespace: 'default' });
    expect(list.items.map((p) => p.metadata?.name)).toContain('target');
  });
});

describe('the Python client’s conventions', () => {
  it('creates a pod from a body without apiVersion and kind', async () => {
    const res = await fetch(`${k.server.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name: 'untyped' },
        spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'untyped' } });
    const wrong = await fetch(`${k.server.base}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'Node', metadata: { name: 'n' }, spec: { containers: [] } }),
    });
    expect(wrong.status).toBe(400);
  });

  it('reads /version/ and /api/v1/ with the trailing slash', async () => {
    const version = await fetch(`${k.server.base}/version/`);
    expect(version.status).toBe(200);
    expect(await version.json()).toMatchObject({ gitVersion: 'v1.32.10' });
    const v1 = await fetch(`${k.server.base}/api/v1/`);
    expect(v1.status).toBe(200);
    expect(await v1.json()).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
  });
});

describe('kubectl subcommands this server does not serve', () => {
  it('debug says ephemeral containers are disabled, without a panic', async () => {
    const r = await k.run(['debug', 'target', '--image=busybox', '--profile=general']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ephemeral containers are disabled for this cluster');
    expect(r.stderr).not.toMatch(/panic|nil pointer/);
  });

  it('exec and cp run; a missing pod is named', async () => {
    const exec = await k.run(['exec', 'target', '--', 'sh', '-c', 'echo hi']);
    expect(exec).toMatchObject({ code: 0, stdout: 'hi\n' });
    // kubectl cp runs tar through exec
    const cp = await k.run(['cp', 'target:/etc/hostname', 'hostname']);
    expect(cp.code).toBe(0);
    const missing = await k.run(['exec', 'nope', '--', 'true']);
    expect(missing.stderr).toContain('pods "nope" not found');
  });
});
