/**
 * What an acknowledgement is worth when the server process dies or its disk refuses, on the real command
 * (test/support/server-process.ts) over real HTTP:
 *
 *  (a) kill -9 in the middle of a burst of concurrent creates and deletes: after a restart every create that
 *      was answered 201 is there, every delete answered 200 stays deleted (or is still finishing); what was
 *      never answered may or may not have happened;
 *  (b) a full data dir (a 2 MiB tmpfs, filled): creates answer 507 with the cause (a delete goes on), nothing
 *      changes, and after kill -9 and a restart nothing refused has happened; once space is back a create
 *      succeeds in the same process;
 *  (c) a read-only pod store (a tmpfs remounted read-only): 503, reads keep working, writes come back with
 *      the store;
 *  (d) two servers on one data dir: the second exits 1 naming the first's pid and URL and the first is not
 *      disturbed; the lock of a server killed with -9 is taken over by the next start, and SIGTERM removes it.
 *
 * (b) and (c) mount file systems, which needs root (CI runs as root); elsewhere they are skipped, and their
 * titles say so.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod, PodList, Status } from '@syncscope/core/api/v1';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { example } from '../support/harness.ts';
import { useServerBundle } from '../support/server-bundle.ts';
import { getJSON, killHard, spawnServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const cleanups: (() => Promise<void>)[] = [];
// the server's main.ts, bundled once: a start costs Node's start, not a TypeScript load of every module
beforeAll(useServerBundle);
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const isRoot = process.getuid?.() === 0;
const rootOnly = (title: string) => (isRoot ? title : `${title} (skipped: not root, cannot mount a tmpfs)`);

async function manifest(name: string): Promise<string> {
  return (await example('healthy.yaml')).replace('name: healthy', `name: ${name}`);
}

function create(base: string, body: string): Promise<Response> {
  return fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body,
  });
}

function remove(base: string, name: string): Promise<Response> {
  return fetch(`${base}/api/v1/namespaces/default/pods/${name}`, { method: 'DELETE' });
}

async function pods(base: string): Promise<Map<string, Pod>> {
  const list = await getJSON<PodList>(`${base}/api/v1/pods`);
  return new Map(list.items.map((p) => [p.metadata.name, p]));
}

/** Creates each pod and expects 201; returns them by name. */
async function createAll(base: string, names: string[]): Promise<Map<string, Pod>> {
  const out = new Map<string, Pod>();
  for (const name of names) {
    const res = await create(base, await manifest(name));
    expect(res.status, await res.clone().text()).toBe(201);
    out.set(name, (await res.json()) as Pod);
  }
  return out;
}

/** A tmpfs of `size` at a fresh directory, unmounted by the cleanups (after the servers using it died). */
async function tmpfs(size: string): Promise<string> {
  const dir = await tempDir('syncscope-crash-', cleanups);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  cleanups.push(async () => {
    execFileSync('umount', ['-l', dir]);
  });
  return dir;
}

/** Writes zeros to `path` until the file system has no block left (ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}

async function expectRefused(res: Response, code: number, reason: string, cause: string): Promise<void> {
  const body = (await res.json()) as Status;
  expect(res.status, JSON.stringify(body)).toBe(code);
  expect(body).toMatchObject({ kind: 'Status', code, reason });
  // the store that met the disk's refusal first: the pods, or the trace journal beside them
  expect(body.message).toMatch(
    new RegExp(
      `^(pod store: cannot write .*/store/pods/|trace journal: cannot write .*/trace/).*: ${cause}$`,
    ),
  );
}

describe('kill -9', () => {
  it('keeps every acknowledged create and delete of a burst cut short', async () => {
    const dataDir = await tempDir('syncscope-crash-', cleanups);
    const one = await startServer(dataDir, cleanups);
    const before = await createAll(
      one.base,
      Array.from({ length: 20 }, (_, i) => `a-${i}`),
    );

    // 80 creates and the 20 deletes at once, 16 in flight at a time; the kill lands after 40 answers
    const ops = [
      ...Array.from({ length: 80 }, (_, i) => ({ kind: 'create' as const, name: `b-${i}` })),
      ...[...before.keys()].map((name) => ({ kind: 'delete' as const, name })),
    ].sort((x, y) => (x.name.split('-')[1] as string).localeCompare(y.name.split('-')[1] as string));
    const created = new Map<string, string>(); // name → uid, answered 201
    const deleted = new Set<string>(); // answered 200
    let answered = 0;
    let killed: Promise<void> | undefined;
    const run = async (op: (typeof ops)[number]) => {
      const res =
        op.kind === 'create'
          ? await create(one.base, await manifest(op.name))
          : await remove(one.base, op.name);
      if (op.kind === 'create' && res.status === 201)
        created.set(op.name, ((await res.json()) as Pod).metadata.uid as string);
      if (op.kind === 'delete' && res.status === 200) deleted.add(op.name);
      if (++answered === 40) killed = killHard(one);
    };
    let next = 0;
    const worker = async () => {
      while (next < ops.length) await run(ops[next++] as (typeof ops)[number]).catch(() => {});
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await killed;
    expect(created.size + deleted.size).toBeGreaterThanOrEqual(40);
    expect(created.size + deleted.size).toBeLessThan(ops.length);

    const two = await startServer(dataDir, cleanups);
    const after = await pods(two.base);
    for (const [name, uid] of created) expect(after.get(name)?.metadata.uid, name).toBe(uid);
    for (const name of deleted) {
      const p = after.get(name);
      if (p) expect(p.metadata.deletionTimestamp, `${name} came back undeleted`).toBeDefined();
    }
    // nothing from before is doubled or changed identity
    for (const [name, p] of before)
      if (after.has(name)) expect(after.get(name)?.metadata.uid).toBe(p.metadata.uid);
    console.log(
      `kill -9 after ${answered} answers: ${created.size} creates and ${deleted.size} deletes acknowledged, all kept`,
    );
  });
});

describe.skipIf(!isRoot)('a data dir that refuses writes', () => {
  it(
    rootOnly(
      'answers 507 to a create on a full disk, lets a delete through, and takes writes again once there is space',
    ),
    async () => {
      const dataDir = await tmpfs('2m');
      const one = await startServer(dataDir, cleanups);
      await createAll(one.base, ['keep-0', 'keep-1']);
      fill(join(dataDir, 'filler'));

      for (let i = 0; i < 5; i++) {
        await expectRefused(
          await create(one.base, await manifest(`full-${i}`)),
          507,
          'InsufficientStorage',
          'no space left on device',
        );
      }
      // whichever store met the full disk first (the pods, or the trace journal beside them) is named
      expect(await (await fetch(`${one.base}/healthz`)).text()).toMatch(
        /^degraded: (pod store|trace journal): cannot write .*no space left on device/,
      );
      // a delete is never refused on a full disk: deleting frees space
      expect((await remove(one.base, 'keep-0')).status).toBe(200);
      const during = await pods(one.base);
      expect(during.get('keep-1')?.metadata.deletionTimestamp).toBeUndefined();
      expect(!during.has('keep-0') || during.get('keep-0')?.metadata.deletionTimestamp !== undefined).toBe(
        true,
      );

      // space comes back: the same process takes a create (once the journal's refused write went through)
      await rm(join(dataDir, 'filler'));
      const body = await manifest('after-0');
      await until('a create taken', async () => (await create(one.base, body)).status === 201);
      await until('healthz ok', async () => (await (await fetch(`${one.base}/healthz`)).text()) === 'ok');

      await killHard(one);
      const two = await startServer(dataDir, cleanups);
      const after = await pods(two.base);
      // the acknowledged delete holds: keep-0 is gone, or still terminating
      expect([...after.keys()].filter((k) => k !== 'keep-0').sort()).toEqual(['after-0', 'keep-1']);
      expect(!after.has('keep-0') || after.get('keep-0')?.metadata.deletionTimestamp !== undefined).toBe(
        true,
      );
    },
  );

  it(rootOnly('answers 503 on a read-only pod store and keeps serving reads'), async () => {
    const dataDir = await tempDir('syncscope-crash-', cleanups);
    const storeDir = join(dataDir, 'store');
    await mkdir(storeDir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', storeDir]);
    cleanups.push(async () => {
      execFileSync('umount', ['-l', storeDir]);
    });
    const one = await startServer(dataDir, cleanups);
    await createAll(one.base, ['ro-0']);
    execFileSync('mount', ['-o', 'remount,ro', storeDir]);

    await expectRefused(
      await create(one.base, await manifest('ro-1')),
      503,
      'ServiceUnavailable',
      'read-only file system',
    );
    await expectRefused(await remove(one.base, 'ro-0'), 503, 'ServiceUnavailable', 'read-only file system');
    expect([...(await pods(one.base)).keys()]).toEqual(['ro-0']);
    const got = await fetch(`${one.base}/api/v1/namespaces/default/pods/ro-0`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as Pod).metadata.deletionTimestamp).toBeUndefined();

    execFileSync('mount', ['-o', 'remount,rw', storeDir]);
    expect((await create(one.base, await manifest('ro-1'))).status).toBe(201);
    await killHard(one);
    const two = await startServer(dataDir, cleanups);
    const after = await pods(two.base);
    expect([...after.keys()].sort()).toEqual(['ro-0', 'ro-1']);
    expect(after.get('ro-0')?.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('one server per data dir', () => {
  it('refuses a second server and hands the lock of a killed one to the next', async () => {
    const dataDir = await tempDir('syncscope-crash-', cleanups);
    const one = await startServer(dataDir, cleanups);
    await createAll(one.base, ['solo']);

    const two = spawnServer(dataDir, cleanups);
    const started = two.listening.then((url) => {
      throw new Error(`a second server started on the same data dir: ${url}`);
    });
    expect((await Promise.race([two.exited, started])).code).toBe(1);
    expect(two.stderr().trim()).toBe(
      `syncscope: data dir ${dataDir} is in use by pid ${one.pid} (${one.base}); stop it or use --data-dir`,
    );
    // the first is untouched: it still serves and writes, and the lock still names it
    expect(await (await fetch(`${one.base}/healthz`)).text()).toBe('ok');
    await createAll(one.base, ['solo-2']);
    expect(JSON.parse(await readFile(join(dataDir, 'lock'), 'utf8'))).toMatchObject({
      pid: one.pid,
      url: one.base,
    });

    await killHard(one);
    const three = await startServer(dataDir, cleanups);
    expect(JSON.parse(await readFile(join(dataDir, 'lock'), 'utf8'))).toMatchObject({
      pid: three.pid,
      url: three.base,
    });
    expect([...(await pods(three.base)).keys()].sort()).toEqual(['solo', 'solo-2']);

    // a clean stop removes it
    three.proc.kill('SIGTERM');
    expect((await three.exited).code, three.stderr()).toBe(0);
    expect(existsSync(join(dataDir, 'lock'))).toBe(false);
  });
});
