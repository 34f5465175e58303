/**
 * The parse thread's writers of an import's NDJSON files. NdjsonOut gathers lines in a small buffer and writes
 * them to the file (at the offset it has reached, with writeSync: the thread has no event loop to keep free)
 * once they hold FLUSH_CHARS, encoded into one buffer kept from write to write, so what is written is never
 * held whole, nor sent across threads. TraceOut writes `trace.ndjson`, one event a line, and notes where the
 * events numbered k·indexEvery start (the index the server's thread keeps). Used by parse-worker.ts and
 * raw-file.ts.
 */
import { fsyncSync, ftruncateSync, writeSync } from 'node:fs';
import type { TraceEvent } from '@syncscope/core/trace';

/** How many characters of NDJSON are gathered before a write. */
const FLUSH_CHARS = 256 * 1024;
/**
 * The buffer gathered lines are encoded into. One per write would leave the thread's memory to the collector's
 * pace: buffers live outside the heap, and it counts them late.
 */
const OUT_BYTES = 1 << 20;

export class NdjsonOut {
  private fd = -1;
  private pending: string[] = [];
  private pendingChars = 0;
  private readonly out = Buffer.allocUnsafe(OUT_BYTES);
  /** bytes in the file */
  written = 0;

  /** Writes into the file open as `fd` from its start (its length is cut to 0). */
  open(fd: number): void {
    this.fd = fd;
    this.restart();
  }

  /** The file made anew: cut to 0, nothing pending. */
  restart(): void {
    if (this.fd >= 0) ftruncateSync(this.fd, 0);
    this.pending = [];
    this.pendingChars = 0;
    this.written = 0;
  }

  /** Lets the file go (the import is done or abandoned): nothing is written any more. */
  detach(): void {
    this.fd = -1;
    this.pending = [];
    this.pendingChars = 0;
  }

  /** One line, its newline included. */
  add(line: string): void {
    this.pending.push(line);
    this.pendingChars += line.length;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  /** Writes what is pending; after it the file holds every line so far. */
  flush(): void {
    if (this.pendingChars === 0 || this.fd < 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    // a UTF-8 byte per UTF-16 unit at least, three at most: the kept buffer unless one line alone is longer
    const fits = text.length * 3 <= this.out.length;
    const buf = fits ? this.out.subarray(0, this.out.write(text)) : Buffer.from(text);
    for (let off = 0; off < buf.length; )
      off += writeSync(this.fd, buf, off, buf.length - off, this.written + off);
    this.written += buf.length;
  }

  /** flush(), then fsync: the file is on disk. */
  sync(): void {
    this.flush();
    if (this.fd >= 0) fsyncSync(this.fd);
  }
}

export class TraceOut {
  readonly file = new NdjsonOut();
  /** how many events went out, and the file's length once the pending lines are written */
  private events = 0;
  private bytes = 0;
  /** the offsets of the indexed events since the last take() */
  private offsets: number[] = [];

  constructor(private readonly indexEvery: number) {}

  /** The trace into the file open as `fd`, from its start. */
  open(fd: number): void {
    this.file.open(fd);
    this.restart();
  }

  /** The trace made anew in the same file, counted from the first event again. */
  restart(): void {
    this.file.restart();
    this.events = 0;
    this.bytes = 0;
    this.offsets = [];
  }

  add(ev: TraceEvent): void {
    if (this.events % this.indexEvery === 0) this.offsets.push(this.bytes);
    this.events++;
    const line = `${JSON.stringify(ev)}\n`;
    this.bytes += Buffer.byteLength(line);
    this.file.add(line);
  }

  /** The file's length and the offsets of the indexed events since the last take (flushes first). */
  take(): { traceBytes: number; offsets: number[] } {
    this.file.flush();
    const offsets = this.offsets;
    this.offsets = [];
    return { traceBytes: this.file.written, offsets };
  }
}
