/**
 * LogFeed: bytes of a live kubelet log in (a followed file, journalctl's stdout), the kubelet-log parser's trace
 * events out, in batches. Shared by the file follower (log-follow.ts) and the journal follower
 * (journal-follow.ts); each owns one feed for its whole life, so the parser's memory of pods, containers and
 * back-off windows carries across rotations and journalctl restarts.
 *
 * Lines: only whole lines reach the parser; a partial last line is held until its newline arrives (or until
 * `endLine()`, when its file is left for good). Memory is bounded: a line longer than `maxLineBytes` is dropped
 * as it arrives (at most that many bytes are ever held), counted in `tooLong` once it ends, and read as an
 * empty line so the line numbers stay the file's.
 *
 * Events: the parser's, with the kubelet's own times, `origin.line` counted over everything this feed read, and
 * the parser's seq (from 1; the live trace numbers them again). They leave through `onEvents` after each
 * `push()` that completed lines, and on `flush()` (the follower calls it when the input has been quiet), which
 * lets out the last entry without waiting for the next line. Every call is synchronous; nothing here blocks.
 */
import { StringDecoder } from 'node:string_decoder';
import { type ImportSummary, KubeletLogParser } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';

export interface FeedOptions {
  onEvents(events: TraceEvent[]): void;
  /** year of headers that carry none (default: the current year) */
  year?: number;
  /** IANA zone of header times (default: this machine's zone, the zone a local kubelet writes in) */
  tz?: string;
  /** longest line kept (default 1 MiB, the importer's limit) */
  maxLineBytes?: number;
  /** how many of the last lines to remember for skipRepeats() (default 0: none) */
  remember?: number;
}

export interface FeedStats {
  bytes: number;
  lines: number;
  events: number;
  /** lines over the limit, skipped */
  tooLong: number;
  /** lines the parser read as kubelet messages it understands / kept raw / other programs' */
  understood: number;
  raw: number;
  other: number;
}

const NL = 0x0a;

function localZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export class LogFeed {
  private readonly parser: KubeletLogParser;
  private readonly decoder = new StringDecoder('utf8');
  private readonly max: number;
  private carry: Buffer[] = [];
  private carryBytes = 0;
  /** bytes of the current line dropped so far (> 0 while a too-long line is being skipped) */
  private skipping = 0;
  private out: TraceEvent[] = [];
  private bytes = 0;
  private tooLong = 0;
  private events = 0;
  /** lines fed since the last flush */
  private dirty = false;
  private recent: string[] = [];
  private skip: Set<string> | undefined;
  repeatsSkipped = 0;

  constructor(private readonly o: FeedOptions) {
    this.max = o.maxLineBytes ?? 1 << 20;
    this.parser = new KubeletLogParser({
      onEvent: (ev) => this.out.push(ev),
      year: o.year ?? new Date().getFullYear(),
      tz: o.tz ?? localZone(),
      // a live log is oldest-first; detecting it would hold the first 400 lines
      reversed: false,
      // lines of a live log arrive within moments of their stamps: a short window keeps the view live
      reorderWindowMs: 2_000,
      maxLineChars: this.max,
    });
  }

  /** Bytes as read, in order. Whole lines go to the parser at once; the rest waits for its newline. */
  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    let start = 0;
    let text = '';
    for (;;) {
      const nl = chunk.indexOf(NL, start);
      if (nl < 0) break;
      if (this.skipping > 0) {
        this.skipping = 0;
        this.tooLong++;
        text += '\n'; // an empty line in its place keeps the line numbers of the file
      } else if (this.carryBytes + nl - start > this.max) {
        this.dropCarry();
        this.tooLong++;
        text += '\n';
      } else {
        if (this.carryBytes > 0) {
          text += this.decoder.write(Buffer.concat([...this.carry, chunk.subarray(start, nl + 1)]));
          this.dropCarry();
        } else text += this.decoder.write(chunk.subarray(start, nl + 1));
      }
      start = nl + 1;
    }
    if (text !== '') this.feed(text);
    const rest = chunk.length - start;
    if (rest === 0) return;
    if (this.skipping > 0) this.skipping += rest;
    else if (this.carryBytes + rest > this.max) {
      this.skipping = this.carryBytes + rest;
      this.dropCarry();
    } else {
      // a copy: the caller may reuse its read buffer
      this.carry.push(Buffer.from(chunk.subarray(start)));
      this.carryBytes += rest;
    }
  }

  /** The input the held partial line came from is gone (rotated away, truncated): it is read as it stands. */
  endLine(): void {
    if (this.skipping > 0) {
      this.skipping = 0;
      this.tooLong++;
      this.feed('\n');
    } else if (this.carryBytes > 0) {
      const text = this.decoder.write(Buffer.concat(this.carry));
      this.dropCarry();
      this.feed(`${text}${this.decoder.end()}\n`);
    }
  }

  /** Lets out every event of the lines fed so far (the input has been quiet). */
  flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.parser.flush();
    this.deliver();
  }

  get pending(): boolean {
    return this.dirty;
  }

  stats(): FeedStats {
    const s: ImportSummary = this.parser.summary();
    return {
      bytes: this.bytes,
      lines: s.lines,
      events: this.events,
      tooLong: this.tooLong + s.tooLong,
      understood: s.understood,
      raw: s.raw,
      other: s.other,
    };
  }

  /**
   * A reader that starts again (a restarted journalctl asked for lines since a second it already read) sends
   * some lines again: from now on, lines that are among the last `remember` ones fed are dropped, until the
   * first line that is not.
   */
  skipRepeats(): void {
    if (this.recent.length > 0) this.skip = new Set(this.recent);
  }

  private feed(whole: string): void {
    let text = whole;
    const n = this.o.remember ?? 0;
    if (n > 0) {
      const lines = text.split('\n');
      lines.pop();
      let from = 0;
      if (this.skip) {
        while (from < lines.length && this.skip.has(lines[from] as string)) from++;
        this.repeatsSkipped += from;
        if (from < lines.length) this.skip = undefined;
      }
      for (let i = from; i < lines.length; i++) this.recent.push(lines[i] as string);
      if (this.recent.length > 2 * n) this.recent = this.recent.slice(-n);
      if (from === lines.length) return;
      if (from > 0) text = `${lines.slice(from).join('\n')}\n`;
    }
    this.dirty = true;
    this.parser.feed(text);
    this.deliver();
  }

  private deliver(): void {
    if (this.out.length === 0) return;
    const batch = this.out;
    this.out = [];
    this.events += batch.length;
    this.o.onEvents(batch);
  }

  private dropCarry(): void {
    this.carry = [];
    this.carryBytes = 0;
  }
}
