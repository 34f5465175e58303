/**
 * What the server keeps in its data dir is its own: the real command, started under umask 022 (which would
 * leave new files 0644 and directories 0755), runs a pod that writes to its log, takes a namespace and an
 * import, and serves its https port (a token set); every regular file under the data dir is then 0600 or
 * tighter and every directory 0700 or tighter, at any depth: the journal, the stores, the imports, the
 * simulated node's container logs and state, the certificate. A data dir left looser (by an older server, or
 * a copy) is tightened by the next start: every file and directory of the server's own trees is made
 * private again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEAP_FLAGS } from '../../apps/server/src/heap.ts';
import { example } from '../support/harness.ts';
import { serverEntry, useServerBundle } from '../support/server-bundle.ts';
import { ROOT, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const TOKEN = 'data-dir-modes-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const SAMPLE = join(
  ROOT,
  'packages/core/src/kubelet-log/testdata/10-v1.16-1.18-journald-glog-v2-sandbox-create-failure.log',
);

const cleanups: (() => Promise<void>)[] = [];
beforeAll(useServerBundle);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The server under `umask 022` (the shell sets it, then becomes the server: one process); its base URL. */
async function startUnder022(dataDir: string): Promise<{ base: string; proc: ChildProcess }> {
  const args = [...HEAP_FLAGS, ...serverEntry(), '--port', '0', '--kube-tls-port', '0'];
  const proc = spawn(
    '/bin/sh',
    ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, ...args, '--data-dir', dataDir, '--no-examples'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'error', SYNCSCOPE_TOKEN: TOKEN },
    },
  );
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const base = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      // the kubeconfig line comes once the https port listens and its certificate is written
      if (m?.[1] && out.includes('kubectl:')) resolve(m[1]);
    });
    void exited.then(() => reject(new Error(`server exited: ${err}`)));
  });
  return { base, proc };
}

/** Every directory and regular file under `dir` (not following links), with its permission bits. */
async function walk(dir: string): Promise<{ path: string; mode: number; dir: boolean }[]> {
  const out: { path: string; mode: number; dir: boolean }[] = [];
  const stack = [dir];
  for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
    for (const name of await readdir(d).catch(() => [])) {
      const path = join(d, name);
      const st = await lstat(path).catch(() => undefined);
      if (!st) continue;
      if (st.isDirectory()) stack.push(path);
      if (st.isDirectory() || st.isFile())
        out.push({ path: relative(dir, path), mode: st.mode & 0o777, dir: st.isDirectory() });
    }
  }
  return out;
}

/** What others (group, other) could read, write or enter: `<mode> <path>` of each such entry. */
async function open(dir: string): Promise<string[]> {
  return (await walk(dir))
    .filter((e) => (e.mode & 0o077) !== 0)
    .map((e) => `${e.mode.toString(8)} ${e.path}`);
}

/** A pod that logs (`name`), a namespace of the same name and an import, as a user makes them. */
async function useTheServer(base: string, name: string): Promise<void> {
  const pod = await fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/yaml' },
    body: (await example('healthy.yaml')).replace('name: healthy', `name: ${name}`),
  });
  expect(pod.status).toBe(201);
  const ns = await fetch(`${base}/api/v1/namespaces`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
  });
  expect(ns.status).toBe(201);
  const imported = await fetch(`${base}/api/v1/imports?name=sample.log`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/plain' },
    body: await readFile(SAMPLE),
  });
  expect(imported.status).toBe(201);
  // the container has written its first line: its log file exists
  await until(`${name} to log "started"`, async () => {
    const res = await fetch(`${base}/api/v1/namespaces/default/pods/${name}/log`, { headers: auth });
    return res.ok && (await res.text()).includes('started');
  });
}

describe('the data dir', () => {
  it('holds nothing others can read or enter, under umask 022, and a looser one is tightened at start', async () => {
    const dataDir = await tempDir('syncscope-modes-', cleanups);
    const first = await startUnder022(dataDir);
    await useTheServer(first.base, 'healthy');

    const kept = (await walk(dataDir)).map((e) => e.path);
    // the walk sees what each writer made
    for (const made of [
      /^imports\/[A-Za-z0-9_-]{22}\/(log\.txt|trace\.ndjson|raw\.ndjson|index\.json|meta\.json)$/,
      /^pods\/default_healthy_[0-9a-f-]+\/app\/0\.log$/,
      /^store\/pods\/.+/,
      /^store\/namespaces\.json$/,
      /^trace\/.+/,
      /^sim-state\.json$/,
      /^tls\/serving\.(crt|key)$/,
    ])
      expect(kept.filter((p) => made.test(p)).length, String(made)).toBeGreaterThan(0);
    expect(await open(dataDir)).toEqual([]);

    // an older data dir: everything readable by all
    first.proc.kill('SIGTERM');
    await new Promise((r) => first.proc.once('exit', r));
    for (const e of await walk(dataDir)) await chmod(join(dataDir, e.path), e.dir ? 0o755 : 0o644);
    expect((await open(dataDir)).length).toBeGreaterThan(10);

    const second = await startUnder022(dataDir);
    expect(await open(dataDir)).toEqual([]);
    await useTheServer(second.base, 'again');
    expect(await open(dataDir)).toEqual([]);
  }, 90_000);
});
