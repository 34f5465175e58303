/**
 * The first pass over a log (blocks.ts StampScanner) read from its UTF-8 bytes as they come, without decoding
 * the most of it: a line whose klog header is at its start or right after its first `: `, with only ASCII
 * before the header's end and nothing before it that dates the line, has its stamp read from the bytes; any
 * other line is decoded and read as StampScanner reads text. The stamps are those StampScanner gives for the
 * input's text split as LineSplitter splits it (LF or CRLF, a byte-order mark at the start dropped, a line over
 * the limit read as an empty one). Memory: one unfinished line, at most three bytes a character of the limit.
 * Browser-safe.
 */
import type { StampScanner } from './blocks.ts';
import { MAX_LINE_CHARS } from './lines.ts';

const LF = 10;
const CR = 13;
/** a line's first `: ` is looked for in this many characters (headerStamp's limit) */
const COLON_BEFORE = 200;

/** the fields of the klog header klogBytes last read */
const at = { month: 0, day: 0, h: 0, m: 0, s: 0, micros: 0 };

/** two ASCII digits at i, or -1 */
function two(b: Uint8Array, i: number): number {
  const x = (b[i] as number) - 48;
  const y = (b[i + 1] as number) - 48;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * Whether the bytes [i, end) start with a klog header (header.ts klogAt, the same match): 1 when they do (its
 * time in `at`), 0 when they do not, -1 when a byte past ASCII stands where the answer on the decoded text could
 * differ. Every byte it reads before answering 1 or 0 is ASCII or decides the answer alike on text.
 */
function klogBytes(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  if (c !== 73 && c !== 87 && c !== 69 && c !== 70) return 0;
  if (end - i < 29) return 0;
  const mo = two(b, i + 1);
  const d = two(b, i + 3);
  if (mo < 0 || d < 0 || b[i + 5] !== 32) return 0;
  const h = two(b, i + 6);
  const m = two(b, i + 9);
  const s = two(b, i + 12);
  const u1 = two(b, i + 15);
  const u2 = two(b, i + 17);
  const u3 = two(b, i + 19);
  if (h < 0 || m < 0 || s < 0 || u1 < 0 || u2 < 0 || u3 < 0) return 0;
  if (b[i + 8] !== 58 || b[i + 11] !== 58 || b[i + 14] !== 46) return 0;
  // past `end` the text has no character: a byte there (the line's CR, its LF, the next line) is read as none
  let j = i + 21;
  if (b[j] !== 32) return 0;
  while (j < end && b[j] === 32) j++;
  const pidStart = j;
  while (j < end && (b[j] as number) >= 48 && (b[j] as number) <= 57) j++;
  if (j === pidStart || j >= end || b[j] !== 32) return 0;
  const srcStart = ++j;
  for (; j < end; j++) {
    const x = b[j] as number;
    // a character past ASCII may be a blank (\s) or not: the text decides
    if (x >= 0x80) return -1;
    if (x === 58 || x === 93 || x === 32 || (x >= 9 && x <= 13)) break;
  }
  if (j === srcStart || j >= end || b[j] !== 58) return 0;
  const lineStart = ++j;
  while (j < end && (b[j] as number) >= 48 && (b[j] as number) <= 57) j++;
  if (j === lineStart || j >= end || b[j] !== 93) return 0;
  at.month = mo;
  at.day = d;
  at.h = h;
  at.m = m;
  at.s = s;
  at.micros = u1 * 10000 + u2 * 100 + u3;
  return 1;
}

/** Feeds a StampScanner the stamps of a UTF-8 input's lines from its bytes, block by block. */
export class StampBytes {
  private carry = new Uint8Array(4096);
  private carried = 0;
  /** the unfinished line passed three bytes a character of the limit: over it, whatever it decodes to */
  private carriedLong = false;
  /** no line ended yet (a byte-order mark at the input's start is dropped, as its decoder drops it) */
  private first = true;
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private readonly firstDecoder = new TextDecoder('utf-8');

  constructor(
    private readonly scan: StampScanner,
    private readonly maxLineChars = MAX_LINE_CHARS,
  ) {}

  /** The next bytes of the input. */
  feed(b: Uint8Array): void {
    let start = 0;
    for (let nl = b.indexOf(LF); nl >= 0; nl = b.indexOf(LF, start)) {
      if (this.carried > 0 || this.carriedLong) {
        this.keep(b, start, nl);
        this.carriedLine();
      } else this.line(b, start, nl);
      start = nl + 1;
    }
    if (start < b.length) this.keep(b, start, b.length);
  }

  /** The input is over: its last line, when it does not end with a newline. */
  end(): void {
    if (this.carried > 0 || this.carriedLong) this.carriedLine(true);
  }

  /** the line carried over from the blocks before (`last`: the input's end, not a newline, ends it) */
  private carriedLine(last = false): void {
    if (this.carriedLong) {
      this.first = false;
      this.scan.line('');
    } else this.line(this.carry, 0, this.carried, last);
    this.carried = 0;
    this.carriedLong = false;
  }

  private keep(b: Uint8Array, from: number, to: number): void {
    if (this.carriedLong) return;
    const n = this.carried + to - from;
    if (n > 3 * this.maxLineChars) {
      this.carriedLong = true;
      this.carried = 0;
      return;
    }
    if (n > this.carry.length) {
      const next = new Uint8Array(Math.max(n, 2 * this.carry.length));
      next.set(this.carry.subarray(0, this.carried));
      this.carry = next;
    }
    this.carry.set(b.subarray(from, to), this.carried);
    this.carried = n;
  }

  /** one whole line, bytes [s, e) without its LF (`last`: the input's last, with no LF) */
  private line(b: Uint8Array, s: number, e: number, last = false): void {
    const first = this.first;
    this.first = false;
    if (e - s <= this.maxLineChars && this.fromHeader(b, s, e > s && b[e - 1] === CR ? e - 1 : e)) return;
    const raw = (first ? this.firstDecoder : this.decoder).decode(b.subarray(s, e));
    // an input of a byte-order mark alone: the splitter has no line to give
    if (last && raw === '') return;
    if (raw.length > this.maxLineChars) this.scan.line('');
    else this.scan.line(raw.charCodeAt(raw.length - 1) === CR ? raw.slice(0, -1) : raw);
  }

  /** the stamp of a line read from its bytes [s, e) (its CR taken off), when its header allows: true */
  private fromHeader(b: Uint8Array, s: number, e: number): boolean {
    const k = klogBytes(b, s, e);
    if (k === 1) {
      this.stamp();
      return true;
    }
    if (k < 0) return false;
    // the first `: ` within the characters headerStamp looks at, with only ASCII before it
    const stop = Math.min(e - 1, s + COLON_BEFORE);
    let colon = -1;
    for (let i = s; i < stop; i++) {
      const x = b[i] as number;
      if (x >= 0x80) return false;
      if (x === 58 && b[i + 1] === 32) {
        colon = i;
        break;
      }
    }
    if (colon <= s || klogBytes(b, colon + 2, e) !== 1) return false;
    // a full date before the header gives the year: StampScanner reads such a line
    const c0 = b[s] as number;
    if (c0 === 60 || (c0 >= 48 && c0 <= 57) || (c0 >= 65 && c0 <= 90 && b[s + 8] === 45)) return false;
    this.stamp();
    return true;
  }

  private stamp(): void {
    this.scan.header(at.month, at.day, at.h, at.m, at.s, at.micros);
  }
}
