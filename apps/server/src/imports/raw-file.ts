/**
 * An import's unread entries (`raw.ndjson` beside `log.txt`): the kubelet lines no family read make no event
 * in `trace.ndjson`; each is one record a line (rawRecordLine), in the order their log.raw events would have
 * had among the trace's events:
 *
 *   [after, node, line, lines, time, level, source, pod, podUID, length, hash, start, end, text?]
 *
 * `start`/`end`: the byte offsets in log.txt of the entry's first line, whose tail of `length` UTF-16 units
 * (checked by `hash`) is its message (entryText); `text`: the message itself for an entry of several lines.
 * Written by the parse thread as the parser hands each entry on (RawOut: the parser's rawEntries sink), so
 * no entry is held; read by raw-read.ts.
 */
import { type ParserOptions, rawEntryOf, rawRecordLine } from '@syncscope/core/kubelet-log';
import { NdjsonOut } from './trace-out.ts';

type RawSink = NonNullable<ParserOptions['rawEntries']>;
type RawFields = Parameters<RawSink['entry']>[0];

/** lines a page of LineStarts holds */
const PAGE_LINES = 1 << 16;

/**
 * Where each line of the log starts, from the bytes as they are read: 8 bytes a line, in pages that are
 * never copied as the log grows.
 */
export class LineStarts {
  private pages: Float64Array[] = [];
  /** how many lines have a known start (line 1 starts at 0) */
  private n = 0;

  constructor() {
    this.clear();
  }

  clear(): void {
    this.pages = [];
    this.n = 0;
    this.push(0);
  }

  get lines(): number {
    return this.n;
  }

  /** The bytes of the log at offset `at`, in order: each newline starts a line. */
  scan(bytes: Buffer, at: number): void {
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) this.push(at + i + 1);
  }

  /** Where line `line` (from 1) starts, or -1 past the lines known. */
  of(line: number): number {
    const i = line - 1;
    if (i < 0 || i >= this.n) return -1;
    return (this.pages[Math.floor(i / PAGE_LINES)] as Float64Array)[i % PAGE_LINES] as number;
  }

  private push(offset: number): void {
    const k = this.n % PAGE_LINES;
    if (k === 0) this.pages.push(new Float64Array(PAGE_LINES));
    (this.pages[this.pages.length - 1] as Float64Array)[k] = offset;
    this.n++;
  }
}

/**
 * The parser's sink of unread entries, each written to raw.ndjson as it comes with its first line's offsets
 * (from `lines`; the end of the last line is the log's `size()`).
 */
export class RawOut implements RawSink {
  readonly file = new NdjsonOut();
  /** how many entries were written */
  count = 0;

  constructor(
    private readonly lines: LineStarts,
    private readonly size: () => number,
  ) {}

  /** The entries into the file open as `fd`, from its start. */
  open(fd: number): void {
    this.file.open(fd);
    this.count = 0;
  }

  /** Made anew in the same file (the log parsed again). */
  restart(): void {
    this.file.restart();
    this.count = 0;
  }

  entry(f: RawFields): void {
    const start = this.lines.of(f.line);
    const next = this.lines.of(f.line + 1);
    const end = start < 0 ? -1 : next >= 0 ? next : this.size();
    this.file.add(rawRecordLine(rawEntryOf(f), start, end));
    this.count++;
  }
}
