/**
 * writeImportFiles: the log of one import and what its parse makes, written under the import's temp dir:
 * `log.txt` (the body as it arrives, inflated when it is gzip and made UTF-8 when it is UTF-16 with a
 * byte-order mark), `trace.ndjson` and `raw.ndjson`, each 0600 and fsynced, and the sparse index the store keeps
 * beside them.
 *
 * The body is written to log.txt at the network's pace, never waiting on the parse (the request must arrive
 * within its timeout); the parse thread (parse-thread.ts) follows it on disk: one feed at a time is asked of
 * it, up to what the log holds then, and the next once it answers, so the requests never queue up and the
 * thread reads the text and writes the events and unread entries itself. The server's thread holds one chunk
 * of the body at a time; the parse thread one block of the log and small buffers of what it writes: nothing
 * grows with the log but the parser's own state, 16 bytes a line (its start, its stamp) and the index (an
 * offset per INDEX_EVERY lines and events).
 *
 * Once the body is in, the rest of the parse is awaited; a log whose lines fall in blocks out of time order
 * (rotated files, several nodes' logs one after the other) has its trace written anew, block by block in time
 * order. Whatever fails, the parse thread is ended before the files are closed (it reads and writes them by
 * descriptor); the caller removes the temp dir.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { asUtf8, type ImportSummary } from '@syncscope/core/kubelet-log';
import { maybeGunzip } from '../gzip-input.ts';
import { FILE_MODE } from '../store/atomic-file.ts';
import { StoreWriteError } from '../store/write-error.ts';
import type { ParseAnswer, ParseThread } from './parse-thread.ts';

export interface ImportIndex {
  /** eventOffsets[k]: byte offset of the event with seq k*indexEvery+1 in trace.ndjson */
  eventOffsets: number[];
  /** lineOffsets[k]: byte offset of line k*indexEvery+1 in log.txt */
  lineOffsets: number[];
}

export interface ImportFiles {
  /** bytes of log.txt */
  size: number;
  summary: ImportSummary;
  index: ImportIndex;
}

/** Thrown when the log holds no kubelet line; nothing is kept. */
export class NoKubeletLines extends Error {}

export interface ImportFilesOptions {
  /** the import's temp dir, made already */
  dir: string;
  body: AsyncIterable<Buffer | string>;
  parser: ParseThread;
  /** the index's step, the parse thread's too */
  indexEvery: number;
  /** Before each chunk is kept: the log's size with it and the trace's size so far; throws to refuse it. */
  admit(logBytes: number, traceBytes: number): void;
}

/** Runs a file system call on `path`; a refusal of the disk becomes a StoreWriteError naming that file. */
export async function disk<T>(path: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw StoreWriteError.isSystem(e) ? StoreWriteError.from(e, path, 'imports') : e;
  }
}

/**
 * Feeds the parse thread what log.txt holds, one request at a time: wrote(n) after each write, drained()
 * once the body is in. The first failure is kept and thrown by check() and drained().
 */
class ParseFollower {
  private written = 0;
  private fed = 0;
  private asking: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly parser: ParseThread,
    private readonly took: (a: ParseAnswer) => void,
  ) {}

  wrote(bytes: number): void {
    this.written = bytes;
    if (!this.asking) this.ask();
  }

  check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  async drained(): Promise<void> {
    while (this.asking) await this.asking;
    this.check();
  }

  private ask(): void {
    if (this.fed >= this.written || this.failure !== undefined) return;
    const to = this.written;
    this.asking = this.parser.feed(to).then(
      (a) => {
        this.fed = to;
        this.took(a);
        this.asking = undefined;
        this.ask();
      },
      (e: unknown) => {
        this.failure = e;
        this.asking = undefined;
      },
    );
  }
}

export async function writeImportFiles(o: ImportFilesOptions): Promise<ImportFiles> {
  const { dir, parser, indexEvery } = o;
  const logPath = join(dir, 'log.txt');
  const tracePath = join(dir, 'trace.ndjson');
  const rawPath = join(dir, 'raw.ndjson');
  let log: FileHandle | undefined;
  let trace: FileHandle | undefined;
  let raw: FileHandle | undefined;
  try {
    // read and write: the parse thread reads what is written
    log = await disk(logPath, () => open(logPath, 'wx+', FILE_MODE));
    trace = await disk(tracePath, () => open(tracePath, 'wx', FILE_MODE));
    raw = await disk(rawPath, () => open(rawPath, 'wx', FILE_MODE));
    parser.start({ log: log.fd, trace: trace.fd, raw: raw.fd });
    const index: ImportIndex = { eventOffsets: [], lineOffsets: [0] };
    let traceBytes = 0;
    const took = (a: ParseAnswer) => {
      // the thread counts the offsets from the trace's first byte
      for (const off of a.offsets) index.eventOffsets.push(off);
      traceBytes = a.traceBytes;
    };
    const follower = new ParseFollower(parser, took);
    let size = 0;
    let lines = 1;
    for await (const chunk of asUtf8(maybeGunzip(o.body))) {
      follower.check();
      o.admit(size + chunk.length, traceBytes);
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) {
        if (lines % indexEvery === 0) index.lineOffsets.push(size + i + 1);
        lines++;
      }
      const [fh, at] = [log, size];
      await disk(logPath, () => write(fh, chunk, at));
      size += chunk.length;
      follower.wrote(size);
    }
    await disk(tracePath, () => follower.drained());
    const last = await disk(tracePath, () => parser.end());
    took(last);
    let summary = last.summary;
    if ((last.blocks ?? 1) > 1 && !summary.reversed) {
      // blocks out of time order: the trace is made again from log.txt, read block by block in time order
      index.eventOffsets.length = 0;
      let a = await disk(tracePath, () => parser.merge());
      for (;;) {
        took(a);
        if (a.summary) break;
        a = await disk(tracePath, () => parser.more());
      }
      summary = a.summary;
    }
    if (summary.events + summary.raw === 0)
      throw new NoKubeletLines(`no kubelet lines in ${summary.lines} lines`);
    const fh = log;
    await disk(logPath, () => fh.sync());
    // the answer comes once the trace and raw.ndjson are fsynced and the thread let go of the files
    await disk(tracePath, () => parser.finish());
    return { size, summary, index };
  } catch (e) {
    // the thread may still read or write the files: it ends before they are closed
    await parser.close();
    throw e;
  } finally {
    await log?.close().catch(() => {});
    await trace?.close().catch(() => {});
    await raw?.close().catch(() => {});
  }
}

async function write(fh: FileHandle, chunk: Uint8Array, at: number): Promise<void> {
  for (let off = 0; off < chunk.length; ) {
    const { bytesWritten } = await fh.write(chunk, off, chunk.length - off, at + off);
    off += bytesWritten;
  }
}
