/**
 * The trace journal on a disk that refuses its writes, under a running server (real HTTP routes, a real
 * engine, an in-process simulated node over gRPC, a real file system mounted over `<dataDir>/trace`):
 *  - full (a small tmpfs, filled): pod writes answer 507 naming the journal's file, /readyz is a 503 and
 *    /healthz says why, the engine goes on; once the disk has room the held events are written, writes are
 *    taken again, and the journal holds every seq issued, none missing;
 *  - read-only (ext4 forced read-only by a file system error, as the kernel does on a failing disk, with the
 *    journal's segment open): 503, and more events than one seq reservation covers never throw into the
 *    engine: they are held, none served.
 * Mounting needs root (CI runs as root); elsewhere these are skipped.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, statfs, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { startSimNode } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api';
import { RealClock } from '@syncscope/core/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test/support/until.ts';
import { type BuiltApp, buildApp } from './app.ts';
import { TRACE_DIR } from './lifecycle.ts';
import { TraceJournal } from './store/journal.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const isRoot = process.getuid?.() === 0;

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
});

/** A server on a fresh data dir whose trace directory is `mount` (called with that directory). */
async function serverOn(mount: (traceDir: string) => void): Promise<{ built: BuiltApp; traceDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'syncscope-journal-disk-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const traceDir = join(dataDir, TRACE_DIR);
  await mkdir(traceDir);
  mount(traceDir);
  cleanups.push(() => {
    execFileSync('umount', ['-l', traceDir]);
  });
  const clock = new RealClock();
  const sim = await startSimNode({ socketPath: join(dataDir, 'sim.sock'), clock, callLatencyMs: {} });
  cleanups.push(() => sim.close());
  const built = await buildApp({ dataDir, clock, sim, examples: false, logger: false, warn: () => {} });
  cleanups.push(() => built.close());
  return { built, traceDir };
}

const running = (p: Pod | undefined) => p?.status?.containerStatuses?.[0]?.state?.running !== undefined;

describe.skipIf(!isRoot)('the trace journal on a disk that refuses', () => {
  it('full: refuses pod writes with 507 and fails /readyz while the engine goes on; loses no event; takes writes once there is room', async () => {
    const { built, traceDir } = await serverOn((dir) =>
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]),
    );
    const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
      built.app.inject({ method, url, ...(payload ? { payload } : {}) });
    expect((await api('POST', '/api/v1/namespaces/default/pods', pod('before'))).statusCode).toBe(201);
    await until('the pod running', () => running(built.engine.getPod('default', 'before')));

    // fill the disk: the next segment write is refused
    const { bavail, bsize } = await statfs(traceDir);
    await writeFile(join(traceDir, 'filler'), Buffer.alloc(bavail * bsize)).catch(() => {});
    built.trace.record({ type: 'loop.skipped', errors: [], backoffMs: 0 });
    const readyz = await until('/readyz failing', async () => {
      const r = await api('GET', '/readyz');
      return r.statusCode === 503 && r.body;
    });
    expect(readyz).toMatch(
      new RegExp(
        `^\\[\\+\\]ping ok\n\\[-\\]storage failed: trace journal: cannot write ${traceDir}/\\S+: no space left on device\n`,
      ),
    );
    const refused = await api('POST', '/api/v1/namespaces/default/pods', pod('during'));
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toMatchObject({
      kind: 'Status',
      reason: 'InsufficientStorage',
      message: expect.stringMatching(/^trace journal: cannot write .*: no space left on device$/),
    });
    expect(built.engine.getPod('default', 'during')).toBeUndefined();
    expect((await api('GET', '/healthz')).body).toMatch(/^degraded: trace journal: cannot write .*no space/);

    // the engine goes on: its events are still issued (kept in memory for the disk), the pod still runs
    const seqBefore = built.trace.next;
    await until('the engine recording', () => built.trace.next > seqBefore + 5);
    expect(running(built.engine.getPod('default', 'before'))).toBe(true);

    // room again: the journal writes what it kept, and writes are taken
    await rm(join(traceDir, 'filler'));
    await until('/readyz ok', async () => (await api('GET', '/readyz')).body === 'ok');
    expect((await api('POST', '/api/v1/namespaces/default/pods', pod('after'))).statusCode).toBe(201);
    expect((await api('GET', '/healthz')).body).toBe('ok');
    const last = built.trace.next - 1;
    await built.close();

    // every seq issued is on disk, in order, none missing
    const journal = new TraceJournal({ dir: traceDir, warn: () => {} });
    await journal.open();
    const seqs = (await journal.read()).map((e) => e.seq);
    await journal.close();
    expect(seqs.length).toBeGreaterThanOrEqual(last);
    expect(seqs.slice(0, last)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  }, 60_000);

  it('read-only: refuses pod writes with 503; events past the seq reservation are held, never thrown at the engine', async () => {
    const image = join(tmpdir(), `syncscope-ro-${process.pid}.img`);
    await writeFile(image, '');
    await truncate(image, 16 * 2 ** 20);
    execFileSync('mkfs.ext4', ['-q', '-F', image]);
    cleanups.push(() => rm(image, { force: true }));
    const { built, traceDir } = await serverOn((dir) =>
      execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, dir]),
    );
    const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
      built.app.inject({ method, url, ...(payload ? { payload } : {}) });
    expect((await api('POST', '/api/v1/namespaces/default/pods', pod('before'))).statusCode).toBe(201);
    await until('the pod running', () => running(built.engine.getPod('default', 'before')));

    // a file system error: the kernel makes the disk read-only under the open segment
    const mount = (await readFile('/proc/self/mounts', 'utf8'))
      .split('\n')
      .find((l) => l.split(' ')[1] === traceDir);
    const device = basename(mount?.split(' ')[0] ?? '');
    await writeFile(`/sys/fs/ext4/${device}/trigger_fs_error`, 'syncscope test\n');
    built.trace.record({ type: 'loop.skipped', errors: [], backoffMs: 0 });
    await until('/readyz failing', async () => (await api('GET', '/readyz')).statusCode === 503);
    const refused = await api('POST', '/api/v1/namespaces/default/pods', pod('during'));
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({
      reason: 'ServiceUnavailable',
      message: expect.stringMatching(/^trace journal: cannot write .*: read-only file system$/),
    });

    // more events than one reservation covers (10,000): none throws, the ones past it are held unserved
    const served = built.trace.next;
    for (let i = 0; i < 20_000; i++) built.trace.record({ type: 'loop.skipped', errors: [], backoffMs: 0 });
    expect(built.trace.holding).toBeGreaterThan(0);
    expect(built.trace.next).toBeLessThan(served + 20_000);
    expect((await api('GET', '/readyz')).statusCode).toBe(503);
    expect(running(built.engine.getPod('default', 'before'))).toBe(true);
  }, 60_000);
});
