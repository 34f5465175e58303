/**
 * Reading segment bytes into events without holding the event loop: TraceJournal's readers (read,
 * events, tail) call these on each run of whole lines segment-lines.ts reads, one LineState per segment.
 *
 * Decoding is the cost (an 8 MiB segment is some 40 000 JSON.parse calls, tens of ms), so:
 *  - a line at or below the seq already seen is passed by its `{"seq":N` prefix, never parsed;
 *  - with a pod filter (podFilter), a line that names neither the pod nor `server.start` is passed by a
 *    byte search, never parsed;
 *  - a line whose checksum does not match (segment.ts) is skipped, as one that does not parse;
 *  - they work in slices of SLICE_MS and yield to the event loop (setImmediate) between them, so timers,
 *    I/O and the sync loop run in between.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import {
  bufferLineSeq,
  decodeRecord,
  failsChecksum,
  type LineState,
  newLineState,
  REPORTED_BAD_OFFSETS,
  type Segment,
} from './segment.ts';
import { mayHold, podNeedles, podOf, type TraceFilter } from './segment-index.ts';

/** Longest run of decoding between two turns of the event loop. */
export const SLICE_MS = 1;

/** Calls fn(start, end) for each complete line of buf from `from`; see eachLine. */
type LineFn = (start: number, end: number) => boolean | undefined;

/**
 * Calls fn for each complete line of buf from offset `from` on (a piece after the last newline is not a
 * line yet). Returns -1 when done (the end, or fn returned false), or, once performance.now() passes
 * `until`, the offset to go on from.
 */
function eachLine(buf: Buffer, from: number, fn: LineFn, until = Number.POSITIVE_INFINITY): number {
  let start = from;
  for (let n = 1; ; n++) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) return -1;
    if (nl > start && fn(start, nl) === false) return -1;
    start = nl + 1;
    if ((n & 31) === 0 && performance.now() >= until) return start;
  }
}

/** eachLine over all of buf in slices of SLICE_MS, yielding to the event loop between them. */
async function eachLineSliced(buf: Buffer, fn: LineFn): Promise<void> {
  let at = 0;
  while (at >= 0) {
    at = eachLine(buf, at, fn, performance.now() + SLICE_MS);
    if (at >= 0) await yieldToLoop();
  }
}

export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Lines failing their checksum: how many, and the byte offsets of the first few. */
export interface ChecksumFailures {
  count: number;
  offsets: number[];
}

/**
 * Adds to `found` the lines of a run (whole lines from the file's offset base) that are whole by their frame
 * yet fail their checksum (segment.ts failsChecksum). Sliced: an older segment is checked after open, in the
 * background.
 */
export async function checksumFailures(
  buf: Buffer,
  base: number,
  state: LineState,
  found: ChecksumFailures,
): Promise<void> {
  state.nextZero = -1;
  await eachLineSliced(buf, (start, lineEnd) => {
    if (failsChecksum(buf, start, lineEnd, state)) {
      found.count++;
      if (found.offsets.length < REPORTED_BAD_OFFSETS) found.offsets.push(base + start);
    }
    return true;
  });
}

/** The events of a run of whole lines with seq > after, oldest first (sliced: see eachLineSliced). */
export async function decodeSliced(
  buf: Buffer,
  after: number,
  state: LineState = newLineState(),
): Promise<TraceEvent[]> {
  const out: TraceEvent[] = [];
  await eachLineSliced(buf, (start, end) => {
    const seq = bufferLineSeq(buf, start, end);
    if (seq !== undefined && seq <= after) return true;
    const ev = decodeRecord(buf, start, end, state);
    if (ev && ev.seq > after) out.push(ev);
    return true;
  });
  return out;
}

/**
 * Gathers a read's answer (events with since < seq < before passing filter, at most limit), segment by
 * segment, then from the queue: each event once, in seq order.
 */
export class Collector {
  readonly out: TraceEvent[] = [];
  seen: number;
  full: boolean;
  private readonly podUID: string | undefined;
  private readonly needles: Buffer[] | undefined;
  /** Per needle, where it next occurs in hitBuf at or after the line being judged (Infinity: nowhere). */
  private hits: number[] = [];
  private hitBuf: Buffer | undefined;
  /** How the lines of the buffer being read were written (segment.ts LineState). */
  private lines: LineState = newLineState();

  constructor(
    since: number,
    private readonly limit: number,
    private readonly filter: TraceFilter | undefined,
    private readonly before: number,
  ) {
    this.seen = since;
    this.full = limit <= 0 || before <= since + 1;
    this.podUID = podOf(filter);
    this.needles = this.podUID === undefined ? undefined : podNeedles(this.podUID);
  }

  /**
   * Whether seg can be passed over without reading it: all of it is at or below what was seen, or its index
   * says it holds nothing the pod filter passes (then what was seen moves past it).
   */
  skips(seg: Segment): boolean {
    const last = seg.index.lastSeq;
    if (last <= this.seen) return true;
    if (this.podUID === undefined || mayHold(seg.index, this.podUID)) return false;
    if (last >= this.before) this.full = true;
    else this.seen = last;
    return true;
  }

  /** Called before the first run of each segment: how its lines were written is judged anew. */
  startSegment(): void {
    this.lines = newLineState();
  }

  /**
   * Takes the events of a run of whole lines of the current segment, in slices, yielding to the event loop
   * between them; false once the answer is complete.
   */
  async addRun(buf: Buffer): Promise<boolean> {
    if (!this.full) await eachLineSliced(buf, (s, e) => this.line(buf, s, e));
    return !this.full;
  }

  addQueued(queued: readonly { ev: TraceEvent }[]): TraceEvent[] {
    for (const q of queued) if (q.ev.seq > this.seen && !this.take(q.ev)) break;
    return this.out;
  }

  private line(buf: Buffer, start: number, end: number): boolean {
    const seq = bufferLineSeq(buf, start, end);
    if (seq !== undefined) {
      if (seq <= this.seen) return true;
      if (seq >= this.before) {
        this.full = true;
        return false;
      }
      if (!this.mayPass(buf, start, end)) {
        this.seen = seq;
        return true;
      }
    }
    const ev = decodeRecord(buf, start, end, this.lines);
    if (!ev || ev.seq <= this.seen) return true;
    return this.take(ev);
  }

  /** Whether the line buf[start, end) holds one of the pod filter's needles (always, without one). */
  private mayPass(buf: Buffer, start: number, end: number): boolean {
    const needles = this.needles;
    if (needles === undefined) return true;
    if (this.hitBuf !== buf) {
      this.hitBuf = buf;
      this.hits = needles.map(() => -1);
    }
    for (let i = 0; i < needles.length; i++) {
      const n = needles[i] as Buffer;
      let at = this.hits[i] as number;
      if (at < start) {
        // searched once per occurrence, not once per line: the search runs on from here to the next one
        const found = buf.indexOf(n, start);
        at = found < 0 ? Number.POSITIVE_INFINITY : found;
        this.hits[i] = at;
      }
      if (at + n.length <= end) return true;
    }
    return false;
  }

  private take(ev: TraceEvent): boolean {
    if (ev.seq >= this.before) this.full = true;
    else {
      this.seen = ev.seq;
      if (!this.filter || this.filter(ev)) this.out.push(ev);
      if (this.out.length >= this.limit) this.full = true;
    }
    return !this.full;
  }
}
