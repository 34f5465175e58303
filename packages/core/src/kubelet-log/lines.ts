/**
 * Splits pushed text into lines (LF or CRLF), numbering them from 1. Browser-safe, no Node imports.
 *
 * Memory: holds at most one unfinished line. A line longer than `maxLineChars` is not kept: its head is
 * dropped as soon as the limit is passed and the line is reported once, through `onLong`, when it ends.
 * Callers: KubeletLogParser.feed (every chunk of the input, in order).
 */
/**
 * How many bytes of input a reader should decode into one string before feeding it (KubeletLogParser.feed). A
 * string of a megabyte is allocated outside the young generation, in fresh pages the kernel has to fault in and
 * zero: decoding a 105 MB log in 1 MiB strings took 0.3-0.6 s of system time, in 64 KiB strings (which reuse the
 * young generation's pages) 0.06 s. The lines cut from a string keep it alive, and a small one is cheap to keep.
 */
export const DECODE_BYTES = 1 << 16;
/** a longer line is skipped (counted): what one line may hold by default */
export const MAX_LINE_CHARS = 1 << 20;

export interface LineSink {
  line(text: string, lineNo: number): void;
  /** a line over the limit was skipped (its number and how many characters it had) */
  long(lineNo: number, chars: number): void;
}

export class LineSplitter {
  private carry = '';
  private carryLong = 0;
  private lineNo = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineChars = MAX_LINE_CHARS,
  ) {}

  get lines(): number {
    return this.lineNo;
  }

  feed(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      this.lineNo++;
      if (this.carryLong > 0) {
        this.sink.long(this.lineNo, this.carryLong + nl - start);
        this.carryLong = 0;
      } else if (this.carry.length + nl - start > this.maxLineChars) {
        this.sink.long(this.lineNo, this.carry.length + nl - start);
        this.carry = '';
      } else {
        let text = this.carry === '' ? chunk.slice(start, nl) : this.carry + chunk.slice(start, nl);
        this.carry = '';
        if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
        this.sink.line(text, this.lineNo);
      }
      start = nl + 1;
    }
    const rest = chunk.length - start;
    if (rest === 0) return;
    if (this.carryLong > 0) this.carryLong += rest;
    else if (this.carry.length + rest > this.maxLineChars) {
      this.carryLong = this.carry.length + rest;
      this.carry = '';
    } else this.carry += chunk.slice(start);
  }

  /** The last line when the input does not end with a newline. */
  end(): void {
    if (this.carryLong > 0) {
      this.lineNo++;
      this.sink.long(this.lineNo, this.carryLong);
    } else if (this.carry !== '') {
      this.lineNo++;
      const text = this.carry.endsWith('\r') ? this.carry.slice(0, -1) : this.carry;
      this.carry = '';
      this.sink.line(text, this.lineNo);
    }
    this.carryLong = 0;
  }
}
