/**
 * The log options beyond the plain read (`kubectl logs --since/--since-time/--limit-bytes/-f`):
 *   - logLimits: sinceSeconds / sinceTime / limitBytes read and checked with the API server's messages;
 *   - followLog: after what the file already holds, what the container instance writes next, until it
 *     stops running (then whatever it wrote last) or the client goes away.
 *
 * The file is the one readPodLogFile has just checked (inside the pod's log directory); following polls its
 * size every FOLLOW_POLL_MS and reads only the bytes added, whole records at a time. A file that shrinks
 * (rotated, truncated) is read again from its start. A client that does not read holds the follower where it
 * is (LogFollower: backpressure), so it costs a bounded buffer, not what the container writes meanwhile.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type ContainerStatus, type Pod, parseRFC3339, type Status } from '@syncscope/core/api';
import { type CriLogOptions, MAX_LOG_BYTES, parseCriLog } from '../pod-logs.ts';
import { badParam, badRequest } from '../status.ts';

/** A read answer at least this long may have been the end of a longer file: its size is not the offset. */
const WHOLE_FILE_BELOW = MAX_LOG_BYTES / 2;

/** The offset to follow from, given the raw text the first answer was made of. */
export const startOffsetOf = (raw: string): number | undefined =>
  Buffer.byteLength(raw) < WHOLE_FILE_BELOW ? Buffer.byteLength(raw) : undefined;

const FOLLOW_POLL_MS = 250;
/** Most of the file read at once: what a follower holds beside the stream's buffer. */
const READ_CHUNK_BYTES = 64 * 1024;
/** The follower's own buffer: above it, reading stops until the client takes some. */
const STREAM_HIGH_WATER_BYTES = 64 * 1024;

export interface LogLimitQuery {
  sinceSeconds?: string;
  sinceTime?: string;
  limitBytes?: string;
}

const positive = (param: string, v: string): number | Status =>
  /^\d{1,15}$/.test(v) && Number(v) > 0 ? Number(v) : badParam(param, v, 'must be greater than 0');

/** The since and limit options of a log request at `now`, or the 400 the API server answers. */
export function logLimits(
  q: LogLimitQuery,
  now: number,
): Pick<CriLogOptions, 'sinceMs' | 'limitBytes'> | Status {
  const out: Pick<CriLogOptions, 'sinceMs' | 'limitBytes'> = {};
  if (q.sinceSeconds !== undefined && q.sinceTime !== undefined) {
    return badRequest('at most one of `sinceTime` or `sinceSeconds` may be specified');
  }
  if (q.sinceSeconds !== undefined) {
    const s = positive('sinceSeconds', q.sinceSeconds);
    if (typeof s !== 'number') return s;
    out.sinceMs = now - s * 1000;
  }
  if (q.sinceTime !== undefined) {
    const t = parseRFC3339(q.sinceTime);
    if (t === null) return badParam('sinceTime', q.sinceTime, 'must be an RFC 3339 time');
    out.sinceMs = t;
  }
  if (q.limitBytes !== undefined) {
    const n = positive('limitBytes', q.limitBytes);
    if (typeof n !== 'number') return n;
    out.limitBytes = n;
  }
  return out;
}

/** Is instance `attempt` of `container` still running (more may be written)? */
export function isRunning(pod: Pod | undefined, container: string, attempt: number): boolean {
  const st = pod?.status;
  const all: ContainerStatus[] = [...(st?.containerStatuses ?? []), ...(st?.initContainerStatuses ?? [])];
  const cs = all.find((c) => c.name === container);
  return cs !== undefined && cs.restartCount === attempt && cs.state?.running !== undefined;
}

export interface FollowOptions {
  dir: string;
  pod: Pod;
  container: string;
  attempt: number;
  /** what was already answered from the file */
  first: string;
  /** the file's size when `first` was read from it, when known (a file read whole); else taken at the
   *  first poll */
  startOffset?: number;
  opts: CriLogOptions;
  running: () => boolean;
  /** How often the file's size is looked at (default FOLLOW_POLL_MS); for testability. */
  pollMs?: number;
}

/**
 * The answer of a follow request: `first`, then new records as they are written.
 *
 * Backpressure: the file is the buffer. Records are read READ_CHUNK_BYTES at a time and pushed only while
 * the stream's buffer is under its high-water mark; once push() says it is full (the client is not reading:
 * the response's socket does not drain, so pipe() stops taking from us), reading stops — `held` — at the
 * offset reached, and goes on from there when the stream is read again. So a client that never reads costs
 * at most a chunk and a high-water mark here, whatever the container writes meanwhile.
 *
 *   poll ──▶ read ≤ READ_CHUNK_BYTES ──▶ push() ─ true ──▶ read on (to the file's end)
 *                                          └─ false ─▶ held … _read() (the client took some) ──▶ poll
 *
 * Emits 'poll' after each tick of its timer: the file looked at, or not while held (for testability).
 */
export class LogFollower extends Readable {
  private readonly file: string;
  private readonly timer: NodeJS.Timeout;
  private offset: number;
  private partial = '';
  /** Keeps a character cut at a chunk's end for the next chunk. */
  private decoder = new StringDecoder('utf8');
  private sent: number;
  private busy = false;
  /** Reading is stopped until the client takes what was pushed. */
  held = false;

  constructor(private readonly f: FollowOptions) {
    super({ highWaterMark: STREAM_HIGH_WATER_BYTES });
    const { namespace, name, uid } = f.pod.metadata;
    this.file = join(f.dir, `${namespace}_${name}_${uid}`, f.container, `${f.attempt}.log`);
    this.sent = Buffer.byteLength(f.first);
    this.offset = f.startOffset ?? -1;
    this.held = !this.push(f.first);
    this.timer = setInterval(() => void this.poll(), f.pollMs ?? FOLLOW_POLL_MS);
  }

  /** Bytes of the log file read so far. */
  get readOffset(): number {
    return this.offset;
  }

  override _read(): void {
    if (!this.held) return;
    this.held = false;
    void this.poll();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    clearInterval(this.timer);
    cb(err);
  }

  private finish(): void {
    clearInterval(this.timer);
    this.push(null);
  }

  private async poll(): Promise<void> {
    if (this.busy || this.destroyed || this.readableEnded) return;
    if (this.held) {
      this.emit('poll');
      return;
    }
    this.busy = true;
    try {
      const alive = this.f.running();
      const size = (await stat(this.file)).size;
      if (this.offset < 0) this.offset = size;
      if (size < this.offset) {
        this.offset = 0;
        this.partial = '';
        this.decoder = new StringDecoder('utf8');
      }
      if (size > this.offset) await this.readTo(size);
      else if (!alive) this.finish();
    } catch {
      this.finish();
    } finally {
      this.busy = false;
      this.emit('poll');
    }
  }

  /** Reads and pushes the records up to `size`, a chunk at a time, until done or held. */
  private async readTo(size: number): Promise<void> {
    const fh = await open(this.file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(Math.min(size - this.offset, READ_CHUNK_BYTES));
      while (this.offset < size && !this.held && !this.destroyed) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - this.offset), this.offset);
        if (bytesRead === 0) return;
        this.offset += bytesRead;
        const text = this.partial + this.decoder.write(buf.subarray(0, bytesRead));
        const cut = text.lastIndexOf('\n') + 1;
        // a record longer than a chunk is not a CRI record (the runtime splits lines at 16 KiB): dropped
        this.partial = text.length - cut > READ_CHUNK_BYTES ? '' : text.slice(cut);
        if (!this.pushChunk(text.slice(0, cut))) return;
      }
    } finally {
      await fh.close();
    }
  }

  /** Pushes the output of `records`; false once limitBytes is reached (the stream is then ended). */
  private pushChunk(records: string): boolean {
    let chunk = parseCriLog(records, { ...this.f.opts, tailLines: undefined, limitBytes: undefined });
    const limit = this.f.opts.limitBytes;
    if (limit !== undefined && this.sent + Buffer.byteLength(chunk) >= limit) {
      chunk = Buffer.from(chunk)
        .subarray(0, limit - this.sent)
        .toString('utf8');
      this.push(chunk);
      this.finish();
      return false;
    }
    this.sent += Buffer.byteLength(chunk);
    if (chunk && !this.push(chunk)) this.held = true;
    return true;
  }
}

/** The answer of a follow request: `first`, then new records as they are written (LogFollower). */
export function followLog(f: FollowOptions): LogFollower {
  return new LogFollower(f);
}
