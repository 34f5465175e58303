/**
 * The log options beyond the plain read (`kubectl logs --since/--since-time/--limit-bytes/-f`):
 *   - logLimits: sinceSeconds / sinceTime / limitBytes read and checked with the API server's messages;
 *   - followLog: after what the file already holds, what the container instance writes next, until it
 *     stops running (then whatever it wrote last) or the client goes away.
 *
 * The file is the one readPodLogFile has just checked (inside the pod's log directory); following polls its
 * size every FOLLOW_POLL_MS and reads only the bytes added, whole records at a time. A file that shrinks
 * (rotated, truncated) is read again from its start.
 */
import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { type ContainerStatus, type Pod, parseRFC3339, type Status } from '@syncscope/core/api';
import { type CriLogOptions, MAX_LOG_BYTES, parseCriLog } from '../pod-logs.ts';

/** A read answer at least this long may have been the end of a longer file: its size is not the offset. */
const WHOLE_FILE_BELOW = MAX_LOG_BYTES / 2;

/** The offset to follow from, given the raw text the first answer was made of. */
export const startOffsetOf = (raw: string): number | undefined =>
  Buffer.byteLength(raw) < WHOLE_FILE_BELOW ? Buffer.byteLength(raw) : undefined;

import { badParam, badRequest } from '../status.ts';

const FOLLOW_POLL_MS = 250;

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
}

/** The answer of a follow request: `first`, then new records as they are written. */
export function followLog(f: FollowOptions): Readable {
  const { namespace, name, uid } = f.pod.metadata;
  const file = join(f.dir, `${namespace}_${name}_${uid}`, f.container, `${f.attempt}.log`);
  let sent = Buffer.byteLength(f.first);
  const limit = f.opts.limitBytes;
  let offset = f.startOffset ?? -1;
  let partial = '';
  let busy = false;
  const out = new Readable({ read() {} });
  out.push(f.first);

  const finish = () => {
    clearInterval(timer);
    out.push(null);
  };
  const poll = async () => {
    if (busy || out.destroyed) return;
    busy = true;
    try {
      const alive = f.running();
      const size = (await stat(file)).size;
      if (offset < 0) offset = size;
      if (size < offset) offset = 0;
      if (size > offset) {
        const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
        try {
          const buf = Buffer.alloc(size - offset);
          const { bytesRead } = await fh.read(buf, 0, buf.length, offset);
          offset += bytesRead;
          const text = partial + buf.subarray(0, bytesRead).toString('utf8');
          const cut = text.lastIndexOf('\n') + 1;
          partial = text.slice(cut);
          let chunk = parseCriLog(text.slice(0, cut), {
            ...f.opts,
            tailLines: undefined,
            limitBytes: undefined,
          });
          if (limit !== undefined && sent + Buffer.byteLength(chunk) >= limit) {
            chunk = Buffer.from(chunk)
              .subarray(0, limit - sent)
              .toString('utf8');
            out.push(chunk);
            finish();
            return;
          }
          sent += Buffer.byteLength(chunk);
          if (chunk) out.push(chunk);
        } finally {
          await fh.close();
        }
      } else if (!alive) finish();
    } catch {
      finish();
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void poll(), FOLLOW_POLL_MS);
  out.on('close', () => clearInterval(timer));
  return out;
}
