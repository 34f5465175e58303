/**
 * The on-disk shape of the trace journal: NDJSON segment files named after the first seq they hold.
 *
 *   <dir>/trace-0000000000000001.ndjson   seq 1 .. 41 803
 *   <dir>/trace-0000000000041804.ndjson   seq 41 804 .. (the segment being appended)
 *
 * One event per line, `seq` written first and a checksum last:
 *
 *   {"seq":17,"type":...,"time":...,"crc":"1c291ca3"}
 *   '---------- crc32 of these bytes ----------'
 *
 * so a reader can skip lines below a seq without parsing them, and damage inside a line (a block of zeros a
 * lost page left, a flipped bit) is found without trusting the JSON to fail: the checksum, CRC-32 (crc32.ts)
 * in 8 lowercase hex digits, covers the line's bytes before `,"crc":"`. Every line is still a JSON object
 * (`jq` reads a segment); the event is that object without `crc`. Lines of a journal written before
 * checksums have none and are judged by their shape, as then; once a line of a segment has a checksum,
 * every later line of it must have one (a server appends to the segment an older one left, never the other
 * way round). Within and across segments seq is strictly increasing; a segment named N holds only seqs >= N,
 * so the segment that may contain seq s is the last one named <= s.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { checkTraceEvent } from '@syncscope/core/trace';
import { crc32 } from './crc32.ts';
import type { SegmentIndex } from './segment-index.ts';

const NAME = /^trace-(\d{16})\.ndjson$/;
const SEQ_PREFIX = '{"seq":';
const SEQ_PREFIX_BYTES = Buffer.from(SEQ_PREFIX);
const CRC_KEY = Buffer.from(',"crc":"');
/** `,"crc":"` + 8 hex digits + `"}`. */
const CRC_TAIL_BYTES = CRC_KEY.length + 10;

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

/** The line for an event, newline included; seq first, checksum last (see the file comment). */
export function encodeEvent(ev: TraceEvent): string {
  const { seq, ...rest } = ev;
  const json = JSON.stringify({ seq, ...rest });
  const body = json.slice(0, -1);
  const crc = crc32(Buffer.from(body)).toString(16).padStart(8, '0');
  return `${body},"crc":"${crc}"}\n`;
}

/**
 * How the lines of one segment read so far were written: whether one had a checksum (then every later one
 * must), and where the next zero byte is (SegmentScan's frame check). One per segment buffer, read in order.
 */
export interface LineState {
  checksummed: boolean;
  /** Offset of the next 0 byte at or after the line being judged; -1 before the first look, Infinity: none. */
  nextZero: number;
}

export function newLineState(): LineState {
  return { checksummed: false, nextZero: -1 };
}

/**
 * Where the event JSON of the line buf[start, end) ends, before its checksum: end - CRC_TAIL_BYTES for a
 * line whose checksum matches, end for a line without one (written before checksums, and none of this
 * segment before it had one); -1 for a damaged line (a checksum that does not match, or none where one is
 * due). With `verify` false only the checksum's shape is looked at, not its value.
 */
function recordBody(buf: Buffer, start: number, end: number, state: LineState, verify = true): number {
  const tail = end - CRC_TAIL_BYTES;
  if (tail <= start || buf[end - 1] !== 0x7d || !hasCrcKey(buf, tail)) return state.checksummed ? -1 : end;
  state.checksummed = true;
  if (buf[end - 2] !== 0x22) return -1;
  if (!verify) return tail;
  let want = 0;
  for (let i = tail + CRC_KEY.length; i < end - 2; i++) {
    const b = buf[i] as number;
    const digit = b >= 48 && b <= 57 ? b - 48 : b >= 97 && b <= 102 ? b - 87 : -1;
    if (digit < 0) return -1;
    want = want * 16 + digit;
  }
  return crc32(buf, start, tail) === want ? tail : -1;
}

/** The seq of the line buf[start, end) read from its `{"seq":N` prefix, without parsing the line. */
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

/** Whether `,"crc":"` is at buf[at]: byte by byte, cheaper than a call into Buffer.compare per line. */
function hasCrcKey(buf: Buffer, at: number): boolean {
  for (let i = 0; i < CRC_KEY.length; i++) if (buf[at + i] !== CRC_KEY[i]) return false;
  return true;
}

/** The event JSON of a line whose body ends at `body` (recordBody), as a string. */
function bodyText(buf: Buffer, start: number, end: number, body: number): string {
  return body === end ? buf.toString('utf8', start, end) : `${buf.toString('utf8', start, body)}}`;
}

/** The event of the line buf[start, end); undefined when it is damaged or not an event. */
export function decodeRecord(
  buf: Buffer,
  start: number,
  end: number,
  state: LineState,
): TraceEvent | undefined {
  const body = recordBody(buf, start, end, state);
  if (body < 0) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(bodyText(buf, start, end, body));
  } catch {
    return undefined;
  }
  return checkTraceEvent(v) === undefined ? (v as TraceEvent) : undefined;
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
 * How a line is judged: `full` checks its checksum (recordBody) and parses it (a JSON object with an
 * integer seq, a time and a type); `frame` only looks at its bytes, some five times faster, for the older
 * segments read at every start: it starts with `{"seq":<digits>`, ends with `}` or a checksum's shape, and
 * holds no zero byte (JSON never has one: zeros a lost page left that ran lines together do). The
 * checksums of the older segments are checked after open, in the background (checksumFailures).
 */
export type ScanDepth = 'full' | 'frame';

/**
 * Scans a segment after a crash, one run of whole lines at a time (segment-lines.ts), in file order. A good
 * line passes the check of `depth` and has a seq above the good line before it (and >= the segment's first
 * seq); its type need not be one this version knows, so a journal written by a newer server is not cut
 * short. Everything after the last good line (a torn write, zeros a lost page left behind) is what the
 * caller cuts; a bad line between good ones is kept, counted and skipped by readers.
 */
export class SegmentScan {
  private validBytes = 0;
  private events = 0;
  private lastSeq: number;
  private badSinceGood: number[] = [];
  private linesSinceGood = 0;
  private bad = 0;
  private readonly badOffsets: number[] = [];
  private readonly state = newLineState();

  constructor(
    firstSeq: number,
    private readonly depth: ScanDepth = 'full',
  ) {
    this.lastSeq = firstSeq - 1;
  }

  /** Judges the lines of buf, a run of whole lines that starts at the file's offset base. */
  add(buf: Buffer, base: number): void {
    this.state.nextZero = -1; // offsets are the new buffer's
    let off = 0;
    for (;;) {
      const nl = buf.indexOf(0x0a, off);
      if (nl < 0) break;
      const seq = goodSeq(buf, off, nl, this.depth, this.state);
      const at = off;
      off = nl + 1;
      if (seq === undefined || seq <= this.lastSeq) {
        if (nl > at) this.badSinceGood.push(base + at);
        this.linesSinceGood++;
        continue;
      }
      this.linesSinceGood = 0;
      // the bad lines seen since the previous good one lie between good ones: count them
      this.bad += this.badSinceGood.length;
      for (const b of this.badSinceGood)
        if (this.badOffsets.length < REPORTED_BAD_OFFSETS) this.badOffsets.push(b);
      this.badSinceGood = [];
      this.lastSeq = seq;
      this.events++;
      this.validBytes = base + off;
    }
  }

  /** What was found; `trailingLines` counts the lines after the last good one (not kept by validBytes). */
  result(): ScanResult & { trailingLines: number } {
    const { validBytes, events, lastSeq, bad, badOffsets } = this;
    return {
      validBytes,
      events,
      lastSeq,
      bad,
      badOffsets: [...badOffsets],
      trailingLines: this.linesSinceGood,
    };
  }
}

/**
 * Whether the line buf[start, end), whole by its frame (SegmentScan's `frame`), fails its checksum: the
 * damage the frame cannot see (a changed byte). Lines are judged in order with one state per buffer.
 */
export function failsChecksum(buf: Buffer, start: number, end: number, state: LineState): boolean {
  const checksummed = state.checksummed;
  if (goodSeq(buf, start, end, 'frame', state) === undefined) return false;
  state.checksummed = checksummed;
  return recordBody(buf, start, end, state) < 0;
}

/** The seq of the line buf[start, end) if it is whole (judged as `depth` says), else undefined. */
function goodSeq(
  buf: Buffer,
  start: number,
  end: number,
  depth: ScanDepth,
  state: LineState,
): number | undefined {
  const body = recordBody(buf, start, end, state, depth === 'full');
  if (body < 0) return undefined;
  if (depth === 'full') return envelopeSeq(bodyText(buf, start, end, body));
  const seq = frameSeq(buf, start, end);
  if (seq === undefined) return seq;
  // zeros (a lost page) that ran lines together leave a frame that looks whole
  if (state.nextZero >= 0 && state.nextZero < start) state.nextZero = -1;
  if (state.nextZero < 0) {
    const z = buf.indexOf(0, start);
    state.nextZero = z < 0 ? Number.POSITIVE_INFINITY : z;
  }
  return state.nextZero < end ? undefined : seq;
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
