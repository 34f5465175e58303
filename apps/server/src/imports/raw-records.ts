/**
 * An import's raw-line side file (raw.ndjson, written by raw-file.ts) read back as untrusted input: its
 * records in order, each checked. A record line longer than MAX_RECORD_BYTES, one that is not a record (not
 * JSON, a field of the wrong type, a NaN or fractional offset) or whose byte range cannot be a line the
 * importer kept (negative, ending before it starts, longer than MAX_RANGE_BYTES) is damaged: it comes as
 * null and is never read, so no record makes a reader allocate more than a line. A file that cannot be read
 * at all (not a regular file, a read the disk refuses) is a 503 Status naming the file and the cause.
 *
 * Memory: one 64 KiB chunk and at most one record line.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { type RawRecord, readRawRecord } from '@syncscope/core/kubelet-log';
import { StatusError, status } from '../status.ts';

/**
 * The longest line the importer keeps: a line over MAX_LINE_CHARS (1 Mi UTF-16 units, kubelet-log/lines.ts)
 * is skipped and makes no entry; in UTF-8 a unit is at most 3 bytes, then CR LF. A longer range is damage.
 */
export const MAX_RANGE_BYTES = 3 * (1 << 20) + 2;
/** The longest record line: a message of several lines is kept in it, at most 1 Mi units, 6 bytes each as JSON. */
const MAX_RECORD_BYTES = 8 << 20;

/** The import's file `name` cannot be read as a whole: a 503 Status naming it and the cause. */
export function unreadable(dir: string, name: string, e: unknown): StatusError {
  const cause = e instanceof Error ? e.message : String(e);
  return new StatusError(
    status(503, 'ServiceUnavailable', `import ${basename(dir)}: ${name} cannot be read: ${cause}`),
  );
}

/**
 * `name` in `dir` opened to read, never waited on (O_NONBLOCK: a FIFO is not blocked on), a regular file;
 * undefined when absent and `optional`, else a 503 Status.
 */
export async function openRegular(
  dir: string,
  name: string,
  optional: boolean,
): Promise<FileHandle | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(join(dir, name), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(dir, name, e);
  }
  const st = await fh.stat().catch(async (e: unknown) => {
    await fh.close();
    throw unreadable(dir, name, e);
  });
  if (st.isFile()) return fh;
  await fh.close();
  throw unreadable(dir, name, new Error('not a regular file'));
}

/** Bytes of raw.ndjson read at a time. */
const CHUNK = 1 << 16;

/**
 * The lines of a file, without their LF; a line over `max` bytes comes as null (its bytes dropped as they
 * are read, never held). Memory: one chunk and at most `max` bytes of one line.
 */
async function* fileLines(fh: FileHandle, max: number): AsyncGenerator<string | null> {
  const buf = Buffer.allocUnsafe(CHUNK);
  let parts: Buffer[] = [];
  let held = 0;
  let long = false;
  for (let pos = 0; ; ) {
    const { bytesRead } = await fh.read(buf, 0, CHUNK, pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const chunk = buf.subarray(0, bytesRead);
    let from = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      if (long || held + piece.length > max) yield null;
      else yield (held === 0 ? piece : Buffer.concat([...parts, piece])).toString('utf8');
      [parts, held, long, from] = [[], 0, false, nl + 1];
    }
    const rest = chunk.subarray(from);
    if (long || held + rest.length > max) [parts, held, long] = [[], 0, true];
    else if (rest.length > 0) {
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  }
  if (long) yield null;
  else if (held > 0) yield Buffer.concat(parts).toString('utf8');
}

const int = (n: unknown, min: number) => Number.isSafeInteger(n) && (n as number) >= min;
const str = (s: unknown) => typeof s === 'string';
const optStr = (s: unknown) => s === undefined || typeof s === 'string';

/** A record line read back and checked; undefined when it is damaged (see the top of this file). */
export function checkedRecord(line: string): RawRecord | undefined {
  let r: RawRecord;
  try {
    r = readRawRecord(line);
  } catch {
    return undefined;
  }
  const e = r.entry;
  const fields =
    int(e.after, 0) &&
    str(e.node) &&
    int(e.line, 1) &&
    int(e.lines, 1) &&
    Number.isFinite(e.time) &&
    str(e.level) &&
    str(e.source) &&
    optStr(e.pod) &&
    optStr(e.podUID) &&
    int(e.length, 0) &&
    Number.isSafeInteger(e.hash) &&
    optStr(e.text);
  if (!fields) return undefined;
  // -1 and -1: the importer did not keep the input that far (the message is unknown); else one line's bytes
  const unknown = r.start === -1 && r.end === -1;
  const line1 = int(r.start, 0) && int(r.end, r.start) && r.end - r.start <= MAX_RANGE_BYTES;
  return unknown || line1 ? r : undefined;
}

/** The entries of raw.ndjson in order, checked; each damaged record as null. None when there is no file. */
export async function* storedEntries(dir: string): AsyncGenerator<RawRecord | null> {
  const fh = await openRegular(dir, 'raw.ndjson', true);
  if (!fh) return;
  try {
    const lines = fileLines(fh, MAX_RECORD_BYTES);
    for (;;) {
      let next: IteratorResult<string | null>;
      try {
        next = await lines.next();
      } catch (e) {
        throw unreadable(dir, 'raw.ndjson', e);
      }
      if (next.done) return;
      if (next.value !== '') yield next.value === null ? null : (checkedRecord(next.value) ?? null);
    }
  } finally {
    await fh.close();
  }
}
