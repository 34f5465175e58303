/**
 * What TraceJournal.open finds on disk, and what it does with damage. Called once, before the server
 * serves anything; never throws for a damaged segment (only when the directory itself cannot be created or
 * listed). Segments are read a block at a time (segment-lines.ts), so a start reads a journal of any size in
 * bounded memory. Each damaged file gives one warning line:
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
import { lstatSync, readdirSync, rmSync, type Stats, truncateSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FILE_MODE, tightenMode } from './atomic-file.ts';
import { copyAside, errorText, setAside } from './damage.ts';
import { ensurePlainDir } from './plain-file.ts';
import {
  parseSegmentName,
  REPORTED_BAD_OFFSETS,
  type ScanDepth,
  type ScanResult,
  type Segment,
  SegmentScan,
} from './segment.ts';
import { emptyIndex, indexRun, type SegmentIndex } from './segment-index.ts';
import { readRange, segmentLines } from './segment-lines.ts';

export interface Recovered {
  /** Oldest first, with their sizes and event counts. */
  segments: Segment[];
  /** The last seq on disk; 0 if none. */
  lastSeq: number;
  /** Bad lines found between good ones, in every segment. */
  badRecords: number;
}

type Warn = (msg: string) => void;

export async function recoverSegments(dir: string, warn: Warn): Promise<Recovered> {
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
    const index: SegmentIndex = { lastSeq: 0, pods: new Set(), starts: 0 };
    const read = await scanFile(dir, seg, 'full', warn, index);
    if (read === undefined) {
      segments.pop();
      continue;
    }
    const { scan, size } = read;
    badRecords += reportBad(seg.path, scan, 0, warn);
    if (scan.events === 0) {
      dropEmptyNewest(dir, seg.path, size, warn);
      segments.pop();
      continue;
    }
    if (scan.validBytes < size) await cutTail(dir, seg.path, size, scan.validBytes, warn);
    seg.bytes = scan.validBytes;
    seg.events = scan.events;
    seg.index = { ...index, lastSeq: scan.lastSeq };
    lastSeq = scan.lastSeq;
    break;
  }
  for (const seg of segments.slice(0, -1)) {
    const read = await scanFile(dir, seg, 'frame', warn);
    if (read === undefined) {
      seg.events = -1;
      continue;
    }
    const { scan, size } = read;
    badRecords += reportBad(seg.path, scan, size > scan.validBytes ? scan.trailingLines : 0, warn);
    seg.bytes = size;
    seg.events = scan.events;
    // its pods are indexed after open (TraceJournal.whenIndexed), not here: a start does not wait for them
    seg.index = { lastSeq: scan.lastSeq, pods: undefined, starts: 0 };
  }
  segments = segments.filter((seg) => seg.events >= 0);
  return { segments, lastSeq, badRecords };
}

/**
 * Scans one segment a block at a time, indexing its lines into `index` when given; the file's size too.
 * Undefined when it cannot be read (then it is set aside).
 */
async function scanFile(
  dir: string,
  seg: Segment,
  depth: ScanDepth,
  warn: Warn,
  index?: SegmentIndex,
): Promise<{ scan: ReturnType<SegmentScan['result']>; size: number } | undefined> {
  const scan = new SegmentScan(seg.firstSeq, depth);
  try {
    const lines = segmentLines(seg.path);
    for (;;) {
      const next = await lines.next();
      if (next.done) {
        const tail = next.value;
        // a piece after the last newline is a line cut short
        const result = scan.result();
        if (tail.bytes > 0) result.trailingLines++;
        return { scan: result, size: tail.at + tail.bytes };
      }
      scan.add(next.value.buf, next.value.base);
      if (index) indexRun(index, next.value.buf);
    }
  } catch (err) {
    setAsideUnreadable(dir, seg.path, err, warn);
    return undefined;
  }
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
 * One warning line for a segment's bad records; returns how many. `trailing` counts the lines after the last
 * good line of an older segment: they are never cut (only the newest segment's tail is), so they count as bad.
 */
function reportBad(path: string, scan: ScanResult, trailing: number, warn: Warn): number {
  const offsets = [...scan.badOffsets];
  let count = scan.bad;
  if (trailing > 0) {
    count += trailing;
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

async function cutTail(
  dir: string,
  path: string,
  size: number,
  validBytes: number,
  warn: Warn,
): Promise<void> {
  let kept: string;
  try {
    kept = `a copy is in ${copyAside(dir, basename(path), await readRange(path, validBytes, size - validBytes))}`;
  } catch (err) {
    kept = `no copy could be kept (${errorText(err)})`;
  }
  const cut = size - validBytes;
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
