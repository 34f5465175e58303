/**
 * The on-disk shape of the trace journal: NDJSON segment files named after the first seq they hold.
 *
 *   <dir>/trace-0000000000000001.ndjson   seq 1 .. 41 803
 *   <dir>/trace-0000000000041804.ndjson   seq 41 804 .. (the segment being appended)
 *
 * One event per line, `seq` written first (`{"seq":17,"type":...,"time":...}`) so a reader can skip lines
 * below a seq without parsing them. Within and across segments seq is strictly increasing; a segment named
 * N holds only seqs >= N, so the segment that may contain seq s is the last one named <= s.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { checkTraceEvent } from '@syncscope/core/trace';
import type { SegmentIndex } from './segment-index.ts';

const NAME = /^trace-(\d{16})\.ndjson$/;
const SEQ_PREFIX = '{"seq":';
const SEQ_PREFIX_BYTES = Buffer.from(SEQ_PREFIX);

export interface Segment {
  firstSeq: number;
  path: string;
  /** Bytes of complete lines. */
  bytes: number;
  events: number;
  /** Its highest seq and the pods it holds (segment-index.ts). */
  index: SegmentIndex;
}

export function segmentName(firstSeq: number): string {
  return `trace-${String(firstSeq).padStart(16, '0')}.ndjson`;
}

export function parseSegmentName(name: string): number | undefined {
  const m = NAME.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** The line for an event, newline included; seq first (see the file comment). */
export function encodeEvent(ev: TraceEvent): string {
  const { seq, ...rest } = ev;
  return `${JSON.stringify({ seq, ...rest })}\n`;
}

/** The seq of a line without parsing all of it; undefined if the line does not start like ours. */
export function lineSeq(line: string): number | undefined {
  if (!line.startsWith(SEQ_PREFIX)) return undefined;
  let end = SEQ_PREFIX.length;
  while (end < line.length && line.charCodeAt(end) >= 48 && line.charCodeAt(end) <= 57) end++;
  if (end === SEQ_PREFIX.length || (line[end] !== ',' && line[end] !== '}')) return undefined;
  return Number(line.slice(SEQ_PREFIX.length, end));
}

/** lineSeq for the line buf[start, end), without making a string of it. */
export function bufferLineSeq(buf: Buffer, start: number, end: number): number | undefined {
  const p = SEQ_PREFIX_BYTES.length;
  if (end - start <= p || buf.compare(SEQ_PREFIX_BYTES, 0, p, start, start + p) !== 0) return undefined;
  let i = start + p;
  let seq = 0;
  while (i < end && (buf[i] as number) >= 48 && (buf[i] as number) <= 57)
    seq = seq * 10 + (buf[i++] as number) - 48;
  if (i === start + p || (buf[i] !== 0x2c && buf[i] !== 0x7d)) return undefined;
  return seq;
}

export function decodeLine(line: string): TraceEvent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  return checkTraceEvent(v) === undefined ? (v as TraceEvent) : undefined;
}

/**
 * Calls fn for each complete line of text (a trailing piece without a newline is not a line yet: it is
 * being written, or was torn by a crash). Stops early when fn returns false.
 */
export function forEachLine(text: string, fn: (line: string) => boolean | undefined): void {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return;
    if (nl > start && fn(text.slice(start, nl)) === false) return;
    start = nl + 1;
  }
}

export interface ScanResult {
  /** Length in bytes up to the end of the last good line; what follows is torn or garbage. */
  validBytes: number;
  events: number;
  lastSeq: number;
  /** Bad lines between good ones (kept in the file, skipped by readers). */
  bad: number;
  /** Byte offsets of the first few of them (at most REPORTED_BAD_OFFSETS). */
  badOffsets: number[];
}

export const REPORTED_BAD_OFFSETS = 5;

/**
 * How a line is judged: `full` parses it (a JSON object with an integer seq, a time and a type); `frame`
 * only looks at its bytes (starts with `{"seq":<digits>` and ends with `}`), some ten times faster, for
 * the older segments read at every start.
 */
export type ScanDepth = 'full' | 'frame';

/**
 * Scans a segment after a crash. A good line passes the check of `depth` and has a seq above the good line
 * before it (and >= the segment's first seq); its type need not be one this version knows, so a journal
 * written by a newer server is not cut short. Everything after the last good line (a torn write, zeros a
 * lost page left behind) is what the caller cuts; a bad line between good ones is kept, counted and skipped
 * by readers.
 */
export function scanSegment(buf: Buffer, firstSeq: number, depth: ScanDepth = 'full'): ScanResult {
  let off = 0;
  let validBytes = 0;
  let events = 0;
  let lastSeq = firstSeq - 1;
  let badSinceGood: number[] = [];
  let bad = 0;
  const badOffsets: number[] = [];
  for (;;) {
    const nl = buf.indexOf(0x0a, off);
    if (nl < 0) break;
    const seq = depth === 'full' ? envelopeSeq(buf.toString('utf8', off, nl)) : frameSeq(buf, off, nl);
    const at = off;
    off = nl + 1;
    if (seq === undefined || seq <= lastSeq) {
      if (nl > at) badSinceGood.push(at);
      continue;
    }
    // the bad lines seen since the previous good one lie between good ones: count them
    bad += badSinceGood.length;
    for (const b of badSinceGood) if (badOffsets.length < REPORTED_BAD_OFFSETS) badOffsets.push(b);
    badSinceGood = [];
    lastSeq = seq;
    events++;
    validBytes = off;
  }
  return { validBytes, events, lastSeq, bad, badOffsets };
}

function envelopeSeq(line: string): number | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const ok = Number.isSafeInteger(o.seq) && typeof o.time === 'number' && typeof o.type === 'string';
  return ok ? (o.seq as number) : undefined;
}

/** The seq of the line buf[start, end) judged by its frame only (see ScanDepth). */
function frameSeq(buf: Buffer, start: number, end: number): number | undefined {
  const p = SEQ_PREFIX_BYTES.length;
  if (end - start <= p + 1 || buf[end - 1] !== 0x7d) return undefined;
  if (buf.compare(SEQ_PREFIX_BYTES, 0, p, start, start + p) !== 0) return undefined;
  let i = start + p;
  let seq = 0;
  while (i < end && (buf[i] as number) >= 48 && (buf[i] as number) <= 57)
    seq = seq * 10 + (buf[i++] as number) - 48;
  if (i === start + p || (buf[i] !== 0x2c && buf[i] !== 0x7d)) return undefined;
  return Number.isSafeInteger(seq) ? seq : undefined;
}

export function countLines(buf: Buffer): number {
  let n = 0;
  let off = buf.indexOf(0x0a);
  while (off >= 0) {
    n++;
    off = buf.indexOf(0x0a, off + 1);
  }
  return n;
}
