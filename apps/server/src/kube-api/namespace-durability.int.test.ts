/**
 * Namespaces created and deleted through the API outlive the server: the real server process on a data dir,
 * killed with SIGKILL right after an answer and started again on it, serves every namespace as it was
 * acknowledged (Active, Terminating while a pod of it is left, gone once removed); a damaged namespace file
 * is warned about and leaves the system namespaces. On a full disk (a small tmpfs over `<dataDir>/store`,
 * filled) a create or a delete is a 507 and changes nothing, a dry run still answers, and once there is room
 * again the writes go through.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimNode } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api';
import { RealClock } from '@syncscope/core/clock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useServerBundle } from '../../../../test/support/server-bundle.ts';
import { killHard, startServer, tempDir } from '../../../../test/support/server-process.ts';
import { until } from '../../../../test/support/until.ts';
import { buildApp } from '../app.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
beforeAll(useServerBundle);

const isRoot = process.getuid?.() === 0;

/** A pod that ignores SIGTERM (a shell's sleep as PID 1): deleted, it stays until its grace period ends. */
const pod = (name: string, grace: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    terminationGracePeriodSeconds: grace,
    containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }],
  },
});

interface Answer {
  code: number;
  body: { metadata?: { uid?: string; deletionTimestamp?: string }; status?: { phase?: string } };
}

async function call(base: string, method: string, url: string, body?: object): Promise<Answer> {
  const res = await fetch(`${base}${url}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  return { code: res.status, body: (await res.json()) as Answer['body'] };
}

const phaseOf = async (base: string, name: string) => {
  const got = await call(base, 'GET', `/api/v1/namespaces/${name}`);
  return got.code === 404 ? 'gone' : got.body.status?.phase;
};
const names = async (base: string) =>
  (
    (await call(base, 'GET', '/api/v1/namespaces')).body as { items: { metadata: { name: string } }[] }
  ).items.map((n) => n.metadata.name);
const SYSTEM = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

describe('namespaces across kill -9', () => {
  it('keeps each namespace as acknowledged: created, Terminating with a pod left, removed', async () => {
    const dataDir = await tempDir('syncscope-ns-kill-', cleanups);
    const one = await startServer(dataDir, cleanups);
    const post = (url: string, body: object) => call(one.base, 'POST', url, body);
    const made = await post('/api/v1/namespaces', { metadata: { name: 'kept', labels: { team: 'a' } } });
    expect(made.code).toBe(201);

    // a namespace whose pod takes 600 s to stop: deleted, it is Terminating for as long
    expect((await post('/api/v1/namespaces', { metadata: { name: 'leaving' } })).code).toBe(201);
    expect((await post('/api/v1/namespaces/leaving/pods', pod('slow', 600))).code).toBe(201);
    await until('the slow pod running', async () => {
      const p = (await call(one.base, 'GET', '/api/v1/namespaces/leaving/pods/slow')).body as Pod;
      return p.status?.containerStatuses?.[0]?.state?.running !== undefined;
    });
    expect((await call(one.base, 'DELETE', '/api/v1/namespaces/leaving')).body.status?.phase).toBe(
      'Terminating',
    );

    // one removed at once (empty), one removed once its pod went
    expect((await post('/api/v1/namespaces', { metadata: { name: 'brief' } })).code).toBe(201);
    expect((await call(one.base, 'DELETE', '/api/v1/namespaces/brief')).code).toBe(200);
    expect((await post('/api/v1/namespaces', { metadata: { name: 'short' } })).code).toBe(201);
    expect((await post('/api/v1/namespaces/short/pods', pod('quick', 0))).code).toBe(201);
    expect((await call(one.base, 'DELETE', '/api/v1/namespaces/short')).code).toBe(200);
    await until('the short namespace removed', async () => (await phaseOf(one.base, 'short')) === 'gone');

    // a dry run keeps nothing; the last create is killed right after its 201
    expect((await post('/api/v1/namespaces?dryRun=All', { metadata: { name: 'trial' } })).code).toBe(201);
    expect((await post('/api/v1/namespaces', { metadata: { name: 'last' } })).code).toBe(201);
    await killHard(one);

    const two = await startServer(dataDir, cleanups);
    expect(await names(two.base)).toEqual([...SYSTEM, 'kept', 'last', 'leaving'].sort());
    const kept = await call(two.base, 'GET', '/api/v1/namespaces/kept');
    expect(kept.body).toMatchObject({
      metadata: { uid: made.body.metadata?.uid, labels: { team: 'a' } },
      status: { phase: 'Active' },
    });
    expect(await phaseOf(two.base, 'last')).toBe('Active');
    expect(await phaseOf(two.base, 'leaving')).toBe('Terminating');
    expect(await phaseOf(two.base, 'brief')).toBe('gone');
    expect(await phaseOf(two.base, 'short')).toBe('gone');
    expect(await phaseOf(two.base, 'trial')).toBe('gone');
    // still refusing new pods while it terminates
    expect((await call(two.base, 'POST', '/api/v1/namespaces/leaving/pods', pod('late', 1))).code).toBe(403);
    await killHard(two);

    // a damaged file: a warning naming it, and the system namespaces
    await writeFile(join(dataDir, 'store', 'namespaces.json'), '{"namespaces": [{"name": "kept"');
    const three = await startServer(dataDir, cleanups);
    expect(three.stderr()).toMatch(/namespace store: \S+namespaces\.json is damaged .*moved to/);
    // the pod of `leaving` was kept: that namespace is back as its pods show it
    expect(await names(three.base)).toEqual([...SYSTEM, 'leaving'].sort());
  }, 120_000);
});

describe.skipIf(!isRoot)('namespaces on a full disk', () => {
  it('answers a create or delete 507 and changes nothing; takes them once there is room', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-ns-full-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const storeDir = join(dataDir, 'store');
    await mkdir(storeDir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', storeDir]);
    cleanups.push(async () => {
      execFileSync('umount', ['-l', storeDir]);
    });
    const clock = new RealClock();
    const sim = await startSimNode({ socketPath: join(dataDir, 'sim.sock'), clock, callLatencyMs: {} });
    cleanups.push(async () => sim.close());
    const built = await buildApp({ dataDir, clock, sim, examples: false, logger: false, warn: () => {} });
    cleanups.push(async () => built.close());
    const api = async (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
      const r = await built.app.inject({ method, url, ...(payload ? { payload } : {}) });
      return { code: r.statusCode, body: r.json() };
    };
    expect((await api('POST', '/api/v1/namespaces', { metadata: { name: 'before' } })).code).toBe(201);
    const file = join(storeDir, 'namespaces.json');
    const kept = await readFile(file, 'utf8');

    const { bavail, bsize } = await statfs(storeDir);
    await writeFile(join(storeDir, 'filler'), Buffer.alloc(bavail * bsize)).catch(() => {});
    const refused = await api('POST', '/api/v1/namespaces', { metadata: { name: 'after' } });
    expect(refused.code).toBe(507);
    expect(refused.body).toMatchObject({ reason: 'InsufficientStorage' });
    expect(refused.body.message).toMatch(/namespace store: cannot write \S+namespaces\.json: no space left/);
    expect((await api('GET', '/api/v1/namespaces/after')).code).toBe(404);
    const del = await api('DELETE', '/api/v1/namespaces/before');
    expect(del.code).toBe(507);
    expect((await api('GET', '/api/v1/namespaces/before')).body.status.phase).toBe('Active');
    // a dry run writes nothing, so the full disk does not refuse it
    expect((await api('POST', '/api/v1/namespaces?dryRun=All', { metadata: { name: 'after' } })).code).toBe(
      201,
    );
    expect(await readFile(file, 'utf8')).toBe(kept);

    await rm(join(storeDir, 'filler'));
    expect((await api('POST', '/api/v1/namespaces', { metadata: { name: 'after' } })).code).toBe(201);
    expect((await api('DELETE', '/api/v1/namespaces/before')).code).toBe(200);
    expect((await api('GET', '/api/v1/namespaces/before')).code).toBe(404);
    const onDisk = JSON.parse(await readFile(file, 'utf8')).namespaces.map((n: { name: string }) => n.name);
    expect(onDisk).toEqual([...SYSTEM, 'after']);
  }, 60_000);
});
