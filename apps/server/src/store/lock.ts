/**
 * One server per data directory: `<dataDir>/lock`, a small JSON file naming its owner
 * ({pid, host, startedAt, procStart, nonce} and, once listening, {port, url}).
 *
 * acquire() is called by buildApp before anything else touches the directory; release() by its close().
 * Both are synchronous and do a few small file operations.
 *
 * Node has no flock, so the lock is a file whose creation is atomic: the owner's JSON is written in full to
 * a private temp file, then link()ed to `lock`, which fails with EEXIST when the name is taken (so a lock
 * is never seen half written). A lock whose owner is gone is taken over:
 *   - gone means: kill(pid, 0) answers ESRCH, or the process with that pid started at another time than
 *     the owner did (`/proc/<pid>/stat` field 22, when there is a /proc: a pid reused after a reboot), or
 *     the file cannot be parsed at all. A lock written on another host is never taken over;
 *   - two contenders that both find the same stale lock must not both win. Each first claims that lock by
 *     hard-linking it to a name derived from its content (`lock.stale-<digest>`): only one link can succeed.
 *     The claimant reads the claim back; if it is not the stale content (the lock changed in between) it
 *     backs off. Otherwise it unlinks `lock`, drops the claim, and competes for a fresh `lock` by link()
 *     as on a clean start. A claim left by a contender that died within those few steps is cleared once it
 *     is older than CLAIM_ABANDONED_MS.
 * Something other than a regular file at `lock` (a FIFO, whose read would never return; a directory; a
 * symlink) was never written by a server: it is moved aside with a warning (plain-file.ts), and the lock
 * taken. The lock file is 0600 and a data dir it creates 0700.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DIR_MODE, FILE_MODE, fsyncDirSync } from './atomic-file.ts';
import { readPlainFile } from './plain-file.ts';

const LOCK_FILE = 'lock';
const CLAIM_ABANDONED_MS = 5_000;
const ATTEMPTS = 20;

export interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), where known. */
  procStart?: string;
  /** Unique to this lock: tells a lock from a later one of the same pid. */
  nonce: string;
  port?: number;
  url?: string;
}

/** Another live server holds the directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    const where = owner.url ?? (owner.port !== undefined ? `port ${owner.port}` : 'not listening yet');
    const host = owner.host === hostname() ? '' : ` on host ${owner.host}`;
    super(`data dir ${dataDir} is in use by pid ${owner.pid}${host} (${where}); stop it or use --data-dir`);
  }
}

export class DataDirLock {
  private released = false;

  private constructor(
    readonly path: string,
    private owner: LockOwner,
  ) {}

  /**
   * Takes the lock of dataDir (created if missing), or throws DataDirInUseError naming the live owner.
   * `warn` hears of a lock that was not a regular file, moved aside.
   */
  static acquire(dataDir: string, warn: (msg: string) => void = (msg) => console.warn(msg)): DataDirLock {
    mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
    const path = join(dataDir, LOCK_FILE);
    const me: LockOwner = {
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      ...optional('procStart', procStartTime(process.pid)),
      nonce: randomUUID(),
    };
    for (let i = 0; i < ATTEMPTS; i++) {
      if (createExclusive(path, me)) return new DataDirLock(path, me);
      const seen = readLock(path, warn);
      if (seen === undefined) continue; // released between our link and our read, or set aside: try again
      const owner = parseOwner(seen);
      if (owner && ownerAlive(owner)) throw new DataDirInUseError(dataDir, owner);
      claimStale(path, seen);
    }
    throw new Error(`cannot take ${path}: it keeps changing (other servers starting on ${dataDir}?)`);
  }

  /** The owner as written in the file. */
  get info(): LockOwner {
    return this.owner;
  }

  /** Adds the listening address to the lock, so a second server can name it. Never throws. */
  listening(port: number, url: string): string | undefined {
    if (this.released) return undefined;
    const next = { ...this.owner, port, url };
    const tmp = `${this.path}.${process.pid}.${next.nonce}.tmp`;
    try {
      writeDurable(tmp, next);
      renameSync(tmp, this.path);
      this.owner = next;
      return undefined;
    } catch (err) {
      rmSync(tmp, { force: true });
      return `lock: cannot record the port in ${this.path}: ${(err as Error).message}`;
    }
  }

  /** Removes the lock if it is still ours. Idempotent; never throws (a read-only dir keeps it). */
  release(): void {
    if (this.released) return;
    this.released = true;
    const seen = readText(this.path);
    if (seen === undefined || parseOwner(seen)?.nonce !== this.owner.nonce) return;
    try {
      unlinkSync(this.path);
      fsyncDirSync(join(this.path, '..'));
    } catch {
      // the next start finds our pid gone and takes the lock over
    }
  }
}

/** link()s a fully written temp file to `path`: true if we now hold it, false if the name is taken. */
function createExclusive(path: string, me: LockOwner): boolean {
  const tmp = `${path}.${process.pid}.${me.nonce}.tmp`;
  writeDurable(tmp, me);
  try {
    linkSync(tmp, path);
    fsyncDirSync(join(path, '..'));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Removes `path` if it still holds `seen`, at most one contender at a time (see the file comment). A step of
 * acquire(), exported so that a contender's late step can be played against a lock taken over meanwhile.
 */
export function claimStale(path: string, seen: string): void {
  const claim = `${path}.stale-${createHash('sha256').update(seen).digest('hex').slice(0, 16)}`;
  try {
    linkSync(path, claim);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return; // the lock is gone already
    if (code !== 'EEXIST') throw err;
    // another contender holds the claim; one that died holding it leaves it behind
    if (Date.now() - (statMs(claim) ?? Date.now()) > CLAIM_ABANDONED_MS) rmSync(claim, { force: true });
    return;
  }
  try {
    if (readText(claim) === seen) unlinkSync(path);
  } finally {
    rmSync(claim, { force: true });
  }
}

function ownerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true; // cannot ask another machine
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // alive (or EPERM: alive, someone else's): the same process only if it started when the owner did
  const started = procStartTime(owner.pid);
  return owner.procStart === undefined || started === undefined || started === owner.procStart;
}

/** Field 22 of /proc/<pid>/stat (starttime); undefined without /proc. Field 2 may hold spaces and ')'. */
export function procStartTime(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return rest[22 - 3];
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockOwner> | null;
    if (v && Number.isSafeInteger(v.pid) && typeof v.host === 'string' && typeof v.nonce === 'string')
      return v as LockOwner;
  } catch {
    // not JSON: not a lock any live server wrote
  }
  return undefined;
}

function writeDurable(path: string, owner: LockOwner): void {
  const fd = openSync(path, 'w', FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The text of the regular file path; undefined when it is missing or not a regular file (never blocks). */
function readText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENXIO') return undefined;
    throw err;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } finally {
    closeSync(fd);
  }
}

/** The lock's text; undefined when there is none (or something else was there, now moved aside). */
function readLock(path: string, warn: (msg: string) => void): string | undefined {
  return readPlainFile(path, 'lock:', warn)?.toString('utf8');
}

function statMs(path: string): number | undefined {
  try {
    return statSync(path).ctimeMs;
  } catch {
    return undefined;
  }
}

function optional<K extends string, V>(key: K, v: V | undefined): { [k in K]?: V } {
  return v === undefined ? {} : ({ [key]: v } as { [k in K]: V });
}

/**
 * Runs `build` with the data dir's lock held (DataDirInUseError when another server has it) and releases
 * the lock when build throws; on success the built server owns it and releases it on close().
 */
export async function withDataDirLock<T>(
  dataDir: string,
  build: (lock: DataDirLock) => Promise<T>,
): Promise<T> {
  const lock = DataDirLock.acquire(dataDir);
  try {
    return await build(lock);
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** Records the server's port and URL in the lock once it listens, so a second server can name them. */
export function recordListening(server: Server, lock: DataDirLock, warn: (msg: string) => void): void {
  server.once('listening', () => {
    const addr = server.address();
    if (typeof addr !== 'object' || !addr) return;
    const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    const problem = lock.listening(addr.port, `http://${host}:${addr.port}`);
    if (problem) warn(problem);
  });
}
