/**
 * What TraceJournal.open finds on disk, and what it does with damage. Called once, synchronously, before
 * the server serves anything; never throws for a damaged segment (only when the directory itself cannot be
 * created or listed). Each damaged file gives one warning line:
 *
 *  - an entry named like a segment that is not a readable regular file (a directory, a FIFO, EACCES, EIO)
 *    is moved into `damaged/` (damage.ts) and the journal goes on without it;
 *  - bad lines between good ones are kept in place (readers skip them) and counted, with the byte offsets
 *    of the first few; the newest segment is judged line by line ('full'), older ones by frame, so a start
 *    reads 256 MiB of history in a few hundred ms rather than seconds;
 *  - each segment's last seq is kept in its index (segment-index.ts), and the newest segment's pods;
 *  - a record whose checksum does not match (segment.ts) is a bad line like any other: counted, reported
 *    with its offset, skipped; the newest segment's checksums are checked here, the older ones' after open
 *    (TraceJournal.whenIndexed), where a frame with zeros in it is found here already;
 *  - segments found readable by others are made 0600, the directory 0700;
 *  - the newest segment's torn or invalid tail (a crash mid-write, zeros of a lost page) is copied into
 *    `damaged/`, then cut; a newest segment holding nothing whole is moved there (an empty one is deleted).
 */
import { lstatSync, readdirSync, readFileSync, rmSync, type Stats, truncateSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FILE_MODE, tightenMode } from './atomic-file.ts';
import { copyAside, errorText, setAside } from './damage.ts';
import { ensurePlainDir } from './plain-file.ts';
import {
  countLines,
  parseSegmentName,
  REPORTED_BAD_OFFSETS,
  type ScanResult,
  type Segment,
  scanSegment,
} from './segment.ts';
import { emptyIndex, indexBuffer } from './segment-index.ts';

export interface Recovered {
  /** Oldest first, with their sizes and event counts. */
  segments: Segment[];
  /** The last seq on disk; 0 if none. */
  lastSeq: number;
  /** Bad lines found between good ones, in every segment. */
  badRecords: number;
}

type Warn = (msg: string) => void;

export function recoverSegments(dir: string, warn: Warn): Recovered {
  ensurePlainDir(dir, 'trace journal:', warn);
  let segments: Segment[] = readdirSync(dir)
    .map((name) => ({ name, firstSeq: parseSegmentName(name) }))
    .filter((s): s is { name: string; firstSeq: number } => s.firstSeq !== undefined)
    .sort((a, b) => a.firstSeq - b.firstSeq)
    .map(({ name, firstSeq }) => ({
      firstSeq,
      path: join(dir, name),
      bytes: 0,
      events: 0,
      index: emptyIndex(firstSeq),
    }))
    .filter((seg) => isPlainFile(dir, seg.path, warn));
  let lastSeq = 0;
  let badRecords = 0;

  while (segments.length > 0) {
    const seg = segments[segments.length - 1] as Segment;
    const buf = readSegment(dir, seg.path, warn);
    if (buf === undefined) {
      segments.pop();
      continue;
    }
    const scan = scanSegment(buf, seg.firstSeq, 'full');
    badRecords += reportBad(seg.path, scan, 0, warn);
    if (scan.events === 0) {
      dropEmptyNewest(dir, seg.path, buf.length, warn);
      segments.pop();
      continue;
    }
    if (scan.validBytes < buf.length) cutTail(dir, seg.path, buf, scan.validBytes, warn);
    seg.bytes = scan.validBytes;
    seg.events = scan.events;
    seg.index = indexBuffer(buf, scan.validBytes, scan.lastSeq);
    lastSeq = scan.lastSeq;
    break;
  }
  for (const seg of segments.slice(0, -1)) {
    const buf = readSegment(dir, seg.path, warn);
    if (buf === undefined) {
      seg.events = -1;
      continue;
    }
    const scan = scanSegment(buf, seg.firstSeq, 'frame');
    badRecords += reportBad(seg.path, scan, buf.subarray(scan.validBytes), warn);
    seg.bytes = buf.length;
    seg.events = scan.events;
    // its pods are indexed after open (TraceJournal.whenIndexed), not here: a start does not wait for them
    seg.index = { lastSeq: scan.lastSeq, pods: undefined, starts: 0 };
  }
  segments = segments.filter((seg) => seg.events >= 0);
  return { segments, lastSeq, badRecords };
}

function isPlainFile(dir: string, path: string, warn: Warn): boolean {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    setAsideUnreadable(dir, path, err, warn);
    return false;
  }
  if (st.isFile()) {
    tightenMode(path, FILE_MODE, warn);
    return true;
  }
  const what = st.isDirectory() ? 'EISDIR: a directory' : 'not a regular file';
  setAsideUnreadable(dir, path, new Error(what), warn);
  return false;
}

function readSegment(dir: string, path: string, warn: Warn): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    setAsideUnreadable(dir, path, err, warn);
    return undefined;
  }
}

function setAsideUnreadable(dir: string, path: string, err: unknown, warn: Warn): void {
  const why = errorText(err);
  try {
    const dest = setAside(dir, path);
    warn(`trace journal: ${path} cannot be read (${why}); moved to ${dest}, going on without it`);
  } catch (moveErr) {
    warn(`trace journal: ${path} cannot be read (${why}) nor moved aside (${errorText(moveErr)}); skipped`);
  }
}

/**
 * One warning line for a segment's bad records; returns how many. `trailing` is what follows the last good
 * line of an older segment: it is never cut (only the newest segment's tail is), so its lines count as bad.
 */
function reportBad(path: string, scan: ScanResult, trailing: Buffer | 0, warn: Warn): number {
  const offsets = [...scan.badOffsets];
  let count = scan.bad;
  if (trailing !== 0 && trailing.length > 0) {
    count += countLines(trailing) + (trailing[trailing.length - 1] === 0x0a ? 0 : 1);
    if (offsets.length < REPORTED_BAD_OFFSETS) offsets.push(scan.validBytes);
  }
  if (count === 0) return 0;
  const more = count > offsets.length ? ', ...' : '';
  warn(
    `trace journal: ${path}: ${count} bad record${count === 1 ? '' : 's'} skipped, ` +
      `at byte ${offsets.join(', ')}${more}`,
  );
  return count;
}

/**
 * One warning line for the records of an older segment found failing their checksum after open (see
 * TraceJournal.whenIndexed); returns how many.
 */
export function reportChecksumFailures(
  path: string,
  failed: { count: number; offsets: number[] },
  warn: Warn,
): number {
  const { count, offsets } = failed;
  if (count === 0) return 0;
  const more = count > offsets.length ? ', ...' : '';
  warn(
    `trace journal: ${path}: ${count} bad record${count === 1 ? '' : 's'} skipped (checksum), ` +
      `at byte ${offsets.join(', ')}${more}`,
  );
  return count;
}

function cutTail(dir: string, path: string, buf: Buffer, validBytes: number, warn: Warn): void {
  let kept: string;
  try {
    kept = `a copy is in ${copyAside(dir, basename(path), buf.subarray(validBytes))}`;
  } catch (err) {
    kept = `no copy could be kept (${errorText(err)})`;
  }
  const cut = buf.length - validBytes;
  warn(`trace journal: ${path}: cut ${cut} bytes after the last whole event at byte ${validBytes}; ${kept}`);
  truncateSync(path, validBytes);
}

/** The newest segment holds no whole event: an empty one is deleted, anything else is set aside. */
function dropEmptyNewest(dir: string, path: string, bytes: number, warn: Warn): void {
  if (bytes === 0) {
    rmSync(path, { force: true });
    return;
  }
  try {
    const dest = setAside(dir, path);
    warn(`trace journal: ${path} holds no whole event (${bytes} bytes); moved to ${dest}`);
  } catch (err) {
    warn(`trace journal: ${path} holds no whole event and cannot be moved aside (${errorText(err)})`);
    rmSync(path, { force: true });
  }
}
