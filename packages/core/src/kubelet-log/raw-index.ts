/**
 * The raw-line index: where the kubelet lines no family read are in the input, instead of one trace event each.
 * A run of consecutive such lines of one node is one range: its first and last line number (from 1, counted by
 * LF as the importer counts them) and, once resolved, the byte offsets [start, end) of those lines in the input
 * as read (a gzip input's inflated bytes; UTF-16 text's UTF-8 form). The text is read back from the input by
 * those offsets (rangeLines), never kept here.
 *
 * RawIndex is filled by the Interpreter while a log is read (memory: 12 bytes a range); OffsetResolver gives the
 * ranges their offsets in one more pass over the input's bytes, in order, counting newlines (Uint8Array.indexOf:
 * no decoding), and hands each on as it is done, so no list of them all is made. Browser-safe (no Node imports).
 */

/** One run of consecutive unread lines of one node. */
export interface RawRange {
  /** the node the lines came from (its name, or `pid N` for a kubelet known by its process id only) */
  node: string;
  /** first and last line number, from 1 */
  first: number;
  last: number;
  /** byte offset of the first line's first byte (set by OffsetResolver) */
  start?: number;
  /** byte offset just past the last line's line end, or the input's end (set by OffsetResolver) */
  end?: number;
}

const GROW = 1024;

/** Where the lines no family read go: `add(node, first, last)` per entry (RawIndex; a counter needs nothing). */
export interface RawSink {
  add(node: string, first: number, last: number): void;
}

/** The unread lines of a log, as ranges; `add` merges a line range into the node's newest range it adjoins. */
export class RawIndex implements RawSink {
  private first = new Uint32Array(GROW);
  private last = new Uint32Array(GROW);
  private nodeOf = new Uint32Array(GROW);
  private n = 0;
  private readonly nodes: string[] = [];
  private readonly nodeIds = new Map<string, number>();
  /** each node's newest range, by node id (-1: none) */
  private readonly tail: number[] = [];
  /** whether ranges were added in line order (ranges() then needs no sort) */
  private ordered = true;

  /** how many ranges there are */
  get size(): number {
    return this.n;
  }

  /** Lines first..last (from 1) of `node` were not read. */
  add(node: string, first: number, last: number): void {
    let id = this.nodeIds.get(node);
    if (id === undefined) {
      id = this.nodes.length;
      this.nodes.push(node);
      this.nodeIds.set(node, id);
      this.tail.push(-1);
    }
    const t = this.tail[id] as number;
    // a run read forwards grows at its end; one read backwards (newest-first input) at its start
    if (t >= 0 && (this.last[t] as number) + 1 === first) {
      this.last[t] = last;
      return;
    }
    if (t >= 0 && last + 1 === this.first[t]) {
      this.first[t] = first;
      return;
    }
    if (this.n === this.first.length) this.grow();
    if (this.n > 0 && first <= (this.last[this.n - 1] as number)) this.ordered = false;
    this.first[this.n] = first;
    this.last[this.n] = last;
    this.nodeOf[this.n] = id;
    this.tail[id] = this.n;
    this.n++;
  }

  /** Every range, in line order (offsets not yet set), an object each as it is reached. */
  *ranges(): Generator<RawRange> {
    let at: Uint32Array | undefined;
    if (!this.ordered) {
      at = new Uint32Array(this.n);
      for (let i = 0; i < this.n; i++) at[i] = i;
      at.sort((a, b) => (this.first[a] as number) - (this.first[b] as number));
    }
    for (let j = 0; j < this.n; j++) {
      const i = at ? (at[j] as number) : j;
      yield {
        node: this.nodes[this.nodeOf[i] as number] as string,
        first: this.first[i] as number,
        last: this.last[i] as number,
      };
    }
  }

  private grow(): void {
    const g = (a: Uint32Array) => {
      const b = new Uint32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.first = g(this.first);
    this.last = g(this.last);
    this.nodeOf = g(this.nodeOf);
  }
}

/**
 * Sets each range's byte offsets from the input's bytes, fed in order (`feed` per block, `end` after the last),
 * and hands each range to `done` once it has them. `ranges` in line order, as RawIndex.ranges() gives them. A
 * range the bytes fed never reach is handed on at `end` without them.
 */
export class OffsetResolver {
  /** the line that starts at byte `base + at` of the current block */
  private line = 1;
  private base = 0;
  private readonly it: Iterator<RawRange>;
  private cur: RawRange | undefined;
  /** whether the next offset wanted is the start of `cur` (else its end) */
  private wantStart = true;

  constructor(
    ranges: Iterable<RawRange>,
    private readonly done: (r: RawRange) => void,
  ) {
    this.it = ranges[Symbol.iterator]();
    this.cur = this.pull();
  }

  private pull(): RawRange | undefined {
    const n = this.it.next();
    return n.done ? undefined : n.value;
  }

  feed(bytes: Uint8Array): void {
    let at = 0;
    while (this.cur) {
      const r = this.cur;
      const target = this.wantStart ? r.first : r.last + 1;
      while (this.line < target) {
        const nl = bytes.indexOf(10, at);
        if (nl < 0) {
          this.base += bytes.length;
          return;
        }
        at = nl + 1;
        this.line++;
      }
      if (this.wantStart) {
        r.start = this.base + at;
        this.wantStart = false;
      } else {
        r.end = this.base + at;
        this.wantStart = true;
        this.done(r);
        this.cur = this.pull();
      }
    }
    this.base += bytes.length;
  }

  /**
   * The input is over (`whole`: all of it was fed): a range whose last line ends it ends at its end; the ranges
   * not reached are handed on as they are.
   */
  end(whole = true): void {
    const r = this.cur;
    if (r && whole && !this.wantStart && this.line === r.last) r.end = this.base;
    for (let x = r; x; x = this.pull()) this.done(x);
    this.cur = undefined;
  }
}

// a byte-order mark inside the range is a character of its text, as the importer read it
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The lines (without their CR LF or LF) of a range's bytes, input[start..end): its exact text. */
export function rangeLines(bytes: Uint8Array): string[] {
  const lines = decoder.decode(bytes).split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}
