import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { inClusterAccess, loadKubeconfig } from './kube-access.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-access-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  const file = join(dir, 'config');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [
        { name: 'other', context: { cluster: 'missing', user: 'u' } },
        { name: 'ctx', context: { cluster: 'c', user: 'u' } },
      ],
      'current-context': 'ctx',
    }),
  );
  return file;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

it("reads the current context's server, CA data and token", () => {
  const a = loadKubeconfig(kubeconfig({ token: 'tok' }, { 'certificate-authority-data': b64('CA PEM') }));
  expect(a.server.href).toBe('https://10.0.0.1:6443/');
  expect(a.ca).toBe('CA PEM');
  expect(a.authorization()).toBe('Bearer tok');
});

it('reads files relative to the kubeconfig, and a token file again at each request', () => {
  writeFileSync(join(dir, 'ca.crt'), 'CA FILE');
  writeFileSync(join(dir, 'client.crt'), 'CERT');
  writeFileSync(join(dir, 'client.key'), 'KEY');
  writeFileSync(join(dir, 'token'), 'first\n');
  const a = loadKubeconfig(
    kubeconfig(
      { 'client-certificate': 'client.crt', 'client-key': 'client.key', tokenFile: 'token' },
      { 'certificate-authority': 'ca.crt', 'tls-server-name': 'api.example' },
    ),
  );
  expect([a.ca, a.cert, a.key, a.tlsServerName]).toEqual(['CA FILE', 'CERT', 'KEY', 'api.example']);
  expect(a.authorization()).toBe('Bearer first');
  writeFileSync(join(dir, 'token'), 'rotated\n');
  expect(a.authorization()).toBe('Bearer rotated');
});

it('reads client certificate data, basic auth and insecure-skip-tls-verify', () => {
  const a = loadKubeconfig(
    kubeconfig(
      {
        'client-certificate-data': b64('CERT'),
        'client-key-data': b64('KEY'),
        username: 'admin',
        password: 'pw',
      },
      { 'insecure-skip-tls-verify': true },
    ),
  );
  expect([a.cert, a.key, a.insecureSkipTLSVerify]).toEqual(['CERT', 'KEY', true]);
  expect(a.authorization()).toBe(`Basic ${b64('admin:pw')}`);
});

it('refuses an exec plugin and a context naming no cluster, by name', () => {
  expect(() => loadKubeconfig(kubeconfig({ exec: { command: 'aws' } }))).toThrow('exec is not supported');
  const file = kubeconfig({});
  writeFileSync(
    file,
    stringify({ 'current-context': 'x', contexts: [{ name: 'x', context: { cluster: 'nope' } }] }),
  );
  expect(() => loadKubeconfig(file)).toThrow('no cluster named "nope"');
});

it('uses the service account inside a pod, and nothing outside one', () => {
  writeFileSync(join(dir, 'token'), 'sa-token');
  writeFileSync(join(dir, 'ca.crt'), 'SA CA');
  const env = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
  const a = inClusterAccess(env, dir);
  expect(a?.server.href).toBe('https://10.96.0.1/');
  expect(a?.ca).toBe('SA CA');
  expect(a?.authorization()).toBe('Bearer sa-token');
  expect(inClusterAccess({}, dir)).toBeUndefined();
  expect(inClusterAccess(env, join(dir, 'none'))).toBeUndefined();
});
