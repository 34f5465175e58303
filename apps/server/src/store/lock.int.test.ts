import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimStale, DataDirInUseError, DataDirLock, type LockOwner, procStartTime } from './lock.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';

// `node --import tsx`: one process per contender, whose pid is the one the lock names.
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CONTENDER = fileURLToPath(new URL('./testdata/lock-contender.ts', import.meta.url));

describe('DataDirLock', () => {
  let dir: string;
  const held: DataDirLock[] = [];
  const lockFile = () => join(dir, 'lock');
  const owner = () => JSON.parse(readFileSync(lockFile(), 'utf8')) as LockOwner;
  const acquire = () => {
    const l = DataDirLock.acquire(dir);
    held.push(l);
    return l;
  };
  const plant = (o: Partial<LockOwner>) =>
    writeFileSync(
      lockFile(),
      JSON.stringify({ host: hostname(), startedAt: '2026-01-01T00:00:00Z', nonce: 'old', ...o }),
    );

  beforeEach(() => {
    dir = newStoreDir('data');
  });
  afterEach(() => {
    for (const l of held.splice(0)) l.release();
    removeStoreDir(dir);
  });

  it('lets one holder in, names it to the next, and is free again once released', () => {
    const first = acquire();
    expect(owner()).toMatchObject({ pid: process.pid, host: hostname() });
    expect(() => DataDirLock.acquire(dir)).toThrow(
      `data dir ${dir} is in use by pid ${process.pid} (not listening yet); stop it or use --data-dir`,
    );
    expect(first.listening(8080, 'http://127.0.0.1:8080')).toBeUndefined();
    expect(owner()).toMatchObject({ pid: process.pid, port: 8080, url: 'http://127.0.0.1:8080' });
    expect(() => DataDirLock.acquire(dir)).toThrow(`in use by pid ${process.pid} (http://127.0.0.1:8080)`);

    first.release();
    expect(existsSync(lockFile())).toBe(false);
    acquire();
    expect(readdirSync(dir)).toEqual(['lock']); // no temp or claim files left behind
  });

  it('takes over the lock of a process that is gone', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    mkdirData();
    plant({ pid: gone.pid as number });
    const lock = acquire();
    expect(owner()).toEqual(lock.info);
    expect(owner().pid).toBe(process.pid);
  });

  it.skipIf(procStartTime(process.pid) === undefined)(
    'takes over a lock whose pid now belongs to a process started at another time',
    () => {
      mkdirData();
      plant({ pid: process.pid, procStart: '1' });
      acquire();
      expect(owner().nonce).not.toBe('old');
    },
  );

  it('takes over a lock file that is not a lock, and never one written on another host', () => {
    mkdirData();
    writeFileSync(lockFile(), 'not json');
    acquire().release();
    plant({ pid: process.pid, host: 'elsewhere' });
    expect(() => DataDirLock.acquire(dir)).toThrow(DataDirInUseError);
    expect(() => DataDirLock.acquire(dir)).toThrow(`in use by pid ${process.pid} on host elsewhere`);
  });

  it('moves aside a directory or a symlink where the lock should be, with one warning, and takes the lock 0600', () => {
    mkdirData();
    const warnings: string[] = [];
    mkdirSync(join(lockFile(), 'inside'), { recursive: true });
    held.push(DataDirLock.acquire(dir, (m) => warnings.push(m)));
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^lock: ${lockFile()} is a directory, not expected there; moved to ${lockFile()}\\.damaged-`,
        ),
      ),
    ]);
    expect(owner().pid).toBe(process.pid);
    expect(statSync(lockFile()).mode & 0o777).toBe(0o600);
    (held.pop() as DataDirLock).release();

    // a symlink to another server's lock file is not followed
    const elsewhere = join(dir, '..', 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ pid: process.pid, host: 'elsewhere', nonce: 'x' }));
    symlinkSync(elsewhere, lockFile());
    warnings.length = 0;
    held.push(DataDirLock.acquire(dir, (m) => warnings.push(m)));
    expect(warnings).toEqual([
      expect.stringContaining(`lock: ${lockFile()} is a symlink, not expected there`),
    ]);
  });

  it('keeps a lock taken over while a slower contender was still deciding to take over the stale one', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    mkdirData();
    plant({ pid: gone.pid as number });
    const seenBySlow = readFileSync(lockFile(), 'utf8');
    const fast = acquire(); // found it stale too, and took it over
    claimStale(lockFile(), seenBySlow); // the slow one acts on what it read
    expect(owner().nonce).toBe(fast.info.nonce);
    expect(() => DataDirLock.acquire(dir)).toThrow(DataDirInUseError);
    expect(readdirSync(dir)).toEqual(['lock']);
  });

  it('gives a stale lock to exactly one of several contenders trying at once', async () => {
    mkdirData();
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    plant({ pid: gone.pid as number });
    const n = 5;
    const children = Array.from({ length: n }, () => contender(dir));
    try {
      await Promise.all(children.map((c) => c.line())); // all ready
      for (const c of children) c.proc.stdin?.write('go\n');
      const results = await Promise.all(children.map((c) => c.line()));
      const winners = children.filter((_, i) => results[i] === 'won');
      expect(winners.length, results.join(', ')).toBe(1);
      const winner = winners[0]?.proc.pid;
      expect(results.filter((r) => r !== 'won')).toEqual(Array(n - 1).fill(`busy ${winner}`));
      expect(owner().pid).toBe(winner);
    } finally {
      for (const c of children) c.proc.stdin?.end();
      await Promise.all(children.map((c) => c.exited));
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  function mkdirData(): void {
    acquire().release(); // creates the directory the way a server does
  }
});

/** A contender process; line() resolves with its next stdout line. */
function contender(dir: string): { proc: ChildProcess; line(): Promise<string>; exited: Promise<unknown> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', CONTENDER, dir], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  let buf = '';
  proc.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const l = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(l);
      else lines.push(l);
    }
  });
  const line = () =>
    new Promise<string>((resolve, reject) => {
      const l = lines.shift();
      if (l !== undefined) return resolve(l);
      waiting.push(resolve);
      void exited.then(() => reject(new Error('contender exited')));
    });
  return { proc, line, exited };
}
