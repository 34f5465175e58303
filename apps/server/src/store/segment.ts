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

const NAME = /^trace-(\d{16})\.ndjson$/;
const SEQ_PREFIX = '{"seq":';

export interface Segment {
  firstSeq: number;
  path: string;
  /** Bytes of complete lines. */
  bytes: number;
  events: number;
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
  /** Length in bytes of the valid prefix (whole lines of valid, increasing events). */
  validBytes: number;
  events: number;
  lastSeq: number;
}

/**
 * Validates a segment from its start: every line must be a trace event with seq >= the segment's first
 * seq and above the line before. Stops at the first line that is not (a torn write at the end after a
 * crash, or garbage a lost page left behind); the caller truncates the file to validBytes.
 */
export function scanSegment(buf: Buffer, firstSeq: number): ScanResult {
  let off = 0;
  let events = 0;
  let lastSeq = firstSeq - 1;
  for (;;) {
    const nl = buf.indexOf(0x0a, off);
    if (nl < 0) break;
    const ev = decodeLine(buf.toString('utf8', off, nl));
    if (!ev || ev.seq <= lastSeq) break;
    lastSeq = ev.seq;
    events++;
    off = nl + 1;
  }
  return { validBytes: off, events, lastSeq };
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
