/**
 * A whole log read in time order, whatever order its blocks were pasted in: a bug report that pastes a log in
 * several blocks, an export of several masters one after the other, a paste whose blocks were shuffled. The
 * first pass reads each line's time from its header alone (StampScanner); a block is a run of lines whose times
 * do not fall back by more than the slack (the reorder window puts the rest right); when there is more than one,
 * blockOrder merges the blocks by time, k-way (a heap of blocks), stable for equal stamps: O(n log k) for n
 * lines in k blocks, and the order of lines as given when the log is one block. A line without a time goes
 * with the line before it (the next line of a message); a glog file header and a `==> name <==` section header
 * go with the line after it (they name what follows). Browser-safe.
 */
import { headerStamp } from './header.ts';
import { LineSplitter } from './lines.ts';
import { looksReversed } from './reverse.ts';
import { LocalClock } from './time.ts';

/** how far a line's time may fall back before it starts a block of its own (the reorder window's) */
export const BLOCK_SLACK_MS = 10_000;

/** how many first lines tell whether an input is newest first (the reader's count) */
const DETECT_LINES = 400;
/** a line that goes with the line before it */
const WITH_BEFORE = Number.NaN;
/** a line that goes with the line after it */
const WITH_NEXT = Number.POSITIVE_INFINITY;

const CRI_STAMP = /^\d{4}-\d\d-\d\dT[^ ]+/;
const JSON_TS = /^\{"ts":(\d+(?:\.\d+)?)/;
const DOCKER_TIME = /"time":"([^"]{20,40})"\}?\s*$/;
/** a date in the first words of a line: `2024-08-20` (ISO, RFC 5424, short-full) or seconds (short-unix) */
const PREFIX_DATE = /^(?:<\d{1,3}>\d{1,2} |[A-Z][a-z]{2} )?(\d{4})-(\d\d)-\d\d|^(\d{9,10})(?:\.\d+)? /;
/** whether PREFIX_DATE can match: `<` or a digit first, or a month's name with the year's dash at 8 */
function mayBeDated(raw: string, c0: number): boolean {
  return c0 === 60 || (c0 >= 48 && c0 <= 57) || (c0 >= 65 && c0 <= 90 && raw.charCodeAt(8) === 45);
}
const GOES_WITH_NEXT =
  /^(?:Log file created at: |Running on machine: |Binary: |Log line format: |(?:\* )?==> )/;

/**
 * The time of each line read so far (ms since the epoch, NaN for a line without one), read in the input's
 * order (a header without a year takes it from the lines before, as the reader does). Memory: 8 bytes a line.
 */
export class StampScanner {
  private stamps = new Float64Array(1024);
  private n = 0;
  private readonly clock: LocalClock;
  /** for text pushed in chunks (feed): a line over the length limit has no time (it goes with the line before) */
  private readonly splitter = new LineSplitter({
    line: (t) => this.line(t),
    long: () => this.line(''),
  });

  constructor(year: number, tz?: string) {
    this.clock = new LocalClock(year, tz);
  }

  /** Text as it arrives, split into lines as the parser splits it; `end()` when it is over. */
  feed(chunk: string): void {
    this.splitter.feed(chunk);
  }

  end(): void {
    this.splitter.end();
  }

  line(raw: string): void {
    this.push(this.stampOf(raw));
  }

  private push(stamp: number): void {
    if (this.n === this.stamps.length) {
      const next = new Float64Array(this.n * 2);
      next.set(this.stamps);
      this.stamps = next;
    }
    this.stamps[this.n++] = stamp;
  }

  /**
   * A line whose klog header (at its start or right after its first `: `) was read by the caller, with nothing
   * before the header that dates the line (StampBytes): its stamp, as line() would give it.
   */
  header(month: number, day: number, h: number, m: number, s: number, micros: number): void {
    this.push(this.clock.toEpoch(month, day, h, m, s, micros));
  }

  /** the stamps of the lines read, in their order */
  get all(): Float64Array {
    return this.stamps.subarray(0, this.n);
  }

  private stampOf(raw: string): number {
    const c0 = raw.charCodeAt(0);
    // a full date before the header (an ISO stamp, RFC 5424, -o short-full or short-unix) gives the year
    const dated = mayBeDated(raw, c0) ? PREFIX_DATE.exec(raw.length > 200 ? raw.slice(0, 200) : raw) : null;
    if (dated) this.yearFrom(dated);
    const h = headerStamp(raw);
    if (h) return this.clock.toEpoch(h.month, h.day, h.h, h.m, h.s, h.micros);
    if (c0 === 123) {
      const ts = JSON_TS.exec(raw);
      if (ts) {
        const v = Number(ts[1]);
        return v > 1e11 ? v : v * 1000;
      }
      const docker = DOCKER_TIME.exec(raw.length > 4096 ? raw.slice(-200) : raw);
      const t = docker ? Date.parse(docker[1] as string) : Number.NaN;
      if (!Number.isFinite(t)) return WITH_BEFORE;
      const d = new Date(t);
      this.clock.setYear(d.getUTCFullYear(), d.getUTCMonth() + 1);
      return t;
    }
    if (c0 >= 48 && c0 <= 57) {
      const cri = CRI_STAMP.exec(raw);
      const t = cri ? Date.parse(cri[0]) : Number.NaN;
      if (Number.isFinite(t)) return t;
    }
    return GOES_WITH_NEXT.test(raw) ? WITH_NEXT : WITH_BEFORE;
  }

  private yearFrom(m: RegExpExecArray): void {
    if (m[1]) this.clock.setYear(Number(m[1]), Number(m[2]));
    else {
      const t = new Date(Number(m[3]) * 1000);
      this.clock.setYear(t.getUTCFullYear(), t.getUTCMonth() + 1);
    }
  }
}

/**
 * The order to read lines in, given their stamps (StampScanner): indexes into them, every line once; undefined
 * when the lines are one block already (read them as they are). And how many blocks there are.
 */
export function blockOrder(
  stamps: Float64Array,
  slackMs = BLOCK_SLACK_MS,
): { order: Uint32Array | undefined; blocks: number } {
  const n = stamps.length;
  // units: a timed line with the lines that go with it; unitStart[u] is its first line, unitTime[u] its time
  const unitStart = new Uint32Array(n + 1);
  const unitTime = new Float64Array(n);
  let units = 0;
  let waiting = -1;
  for (let i = 0; i < n; i++) {
    const t = stamps[i] as number;
    if (t === WITH_NEXT) {
      if (waiting < 0) waiting = i;
    } else if (Number.isFinite(t)) {
      unitStart[units] = waiting >= 0 ? waiting : i;
      unitTime[units++] = t;
      waiting = -1;
    } else if (units === 0 && waiting < 0) waiting = i;
  }
  if (units === 0) return { order: undefined, blocks: 1 };
  // lines before the first timed line go with it; lines after a trailing header go with the last unit
  unitStart[0] = 0;
  unitStart[units] = n;
  // blocks: runs of units whose times do not fall back by more than the slack
  const blockFirst: number[] = [0];
  let max = unitTime[0] as number;
  for (let u = 1; u < units; u++) {
    const t = unitTime[u] as number;
    if (t < max - slackMs) {
      blockFirst.push(u);
      max = t;
    } else if (t > max) max = t;
  }
  const blocks = blockFirst.length;
  if (blocks === 1) return { order: undefined, blocks };
  blockFirst.push(units);
  return { order: merge(blockFirst, unitStart, unitTime, n), blocks };
}

/** k-way merge of the blocks' units by time, the earlier block first on equal times */
function merge(blockFirst: number[], unitStart: Uint32Array, unitTime: Float64Array, n: number): Uint32Array {
  const k = blockFirst.length - 1;
  const next = Int32Array.from(blockFirst.slice(0, k));
  const heap: number[] = [];
  const before = (a: number, b: number) => {
    const ta = unitTime[next[a] as number] as number;
    const tb = unitTime[next[b] as number] as number;
    return ta < tb || (ta === tb && a < b);
  };
  const up = (i0: number) => {
    let i = i0;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i] as number, heap[p] as number)) break;
      [heap[i], heap[p]] = [heap[p] as number, heap[i] as number];
      i = p;
    }
  };
  const down = () => {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l] as number, heap[m] as number)) m = l;
      if (r < heap.length && before(heap[r] as number, heap[m] as number)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
      i = m;
    }
  };
  for (let b = 0; b < k; b++) {
    heap.push(b);
    up(heap.length - 1);
  }
  const order = new Uint32Array(n);
  let o = 0;
  while (heap.length > 0) {
    const b = heap[0] as number;
    const u = next[b] as number;
    for (let i = unitStart[u] as number; i < (unitStart[u + 1] as number); i++) order[o++] = i;
    next[b] = u + 1;
    if (u + 1 < (blockFirst[b + 1] as number)) down();
    else {
      heap[0] = heap[heap.length - 1] as number;
      heap.pop();
      if (heap.length > 0) down();
    }
  }
  return order;
}

/** what feedWhole did: read the lines last to first (newest-first input), and in how many blocks it found them */
export interface WholeRead {
  reversed: boolean;
  blocks: number;
}

/**
 * A whole log in memory fed to `feedLine` in time order: newest-first input (`journalctl -r`, an export sorted
 * newest first) is turned round first, then blocks are merged (blockOrder). Each line keeps its number in the
 * input as given. `reversed`: as the parser's option (default: detected from the first lines).
 */
export function feedWhole(
  text: string,
  feedLine: (text: string, lineNo: number) => void,
  o: WholeOptions = {},
): WholeRead {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return feedLines(lines.length, (i) => lines[i] as string, feedLine, o);
}

export interface WholeOptions {
  year?: number;
  tz?: string;
  reversed?: 'auto' | boolean;
}

/**
 * feedWhole over `n` lines read by `lineAt(i)` (0-based, without the newline; a CR before it is dropped), each
 * read twice: for its time, then to feed it. A reader that holds the bytes (the import-log command) decodes a
 * line when it is asked for, so only the bytes and 16 bytes a line are held.
 */
export function feedLines(
  n: number,
  lineAt: (i: number) => string,
  feedLine: (text: string, lineNo: number) => void,
  o: WholeOptions = {},
): WholeRead {
  const w = wholeOrder(n, lineAt, o);
  for (let j = 0; j < n; j++) {
    const i = w.lineOf(j);
    feedLine(lineText(lineAt, i), i + 1);
  }
  return { reversed: w.reversed, blocks: w.blocks };
}

function lineText(lineAt: (i: number) => string, i: number): string {
  const l = lineAt(i);
  return l.charCodeAt(l.length - 1) === 13 ? l.slice(0, -1) : l;
}

/**
 * The first pass of feedLines alone, for a reader that feeds the lines itself (and waits for its output between
 * them): `lineOf(j)` is the 0-based index of the j-th line to feed.
 */
export function wholeOrder(
  n: number,
  lineAt: (i: number) => string,
  o: WholeOptions = {},
): WholeRead & { lineOf(j: number): number } {
  const head: string[] = [];
  for (let i = 0; i < Math.min(n, DETECT_LINES); i++) head.push(lineText(lineAt, i));
  const reversed = o.reversed === true || (o.reversed !== false && looksReversed(head));
  const at = (i: number) => (reversed ? n - 1 - i : i);
  const scan = new StampScanner(o.year ?? new Date().getUTCFullYear(), o.tz);
  for (let i = 0; i < n; i++) scan.line(lineText(lineAt, at(i)));
  const { order, blocks } = blockOrder(scan.all);
  return { reversed, blocks, lineOf: (j) => at(order ? (order[j] as number) : j) };
}
