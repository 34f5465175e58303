/**
 * ParseThread: the kubelet log parser of one import on a worker thread of its own (parse-worker.ts), so the
 * server's event loop (the engine, /healthz, every other request) never waits on a parse: a 12 MB log of
 * deeply nested JSON lines or a 48 KB run of digits costs the parser seconds, all of them on the worker.
 *
 * The thread reads the log from log.txt as the server writes it there and writes the trace itself: start(fds)
 * hands it both files, feed(n) says the first n bytes of the log are on disk and resolves once they are parsed
 * and their events written, end() resolves with the summary and the number of blocks out of time order;
 * merge() and more() write the trace anew in time order; finish() fsyncs what the thread wrote (the trace, the
 * unread entries) and lets the files go. Only sizes and index offsets cross between the threads, never the
 * log's text, its events or its unread entries. Requests are
 * answered in order. close() ends the thread. ParsePool keeps one idle thread for the next import (a thread
 * takes a few hundred ms to start: it compiles the parser) and starts more for imports that run at the same
 * time. From TypeScript sources (the server runs under tsx, whose loader hooks a new thread does not inherit)
 * the thread registers tsx itself first, as the import-log encoder's does.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportSummary } from '@syncscope/core/kubelet-log';

export type ParseRequest =
  | { start: { log: number; trace: number; raw: number } }
  | { feed: number }
  | { end: true }
  | { merge: true }
  | { more: true }
  | { finish: true };
export interface ParseAnswer {
  /** how many bytes trace.ndjson holds now */
  traceBytes: number;
  /** trace byte offsets of the events numbered k·indexEvery among those written since the last answer */
  offsets: number[];
  summary?: ImportSummary;
  /** with the answer to end: in how many blocks out of time order the log's lines fall */
  blocks?: number;
  /** how many unread entries raw.ndjson holds now */
  raws?: number;
  error?: string;
  /** when the disk refused: the system's error code and call */
  code?: string;
  syscall?: string;
}

/** The parser threw (a bug, or memory): the import fails with this, nothing is kept. */
export class ParseFailed extends Error {}

/** The disk refused a read or write of the thread: an error with the system's code and call, as fs throws. */
function diskError(a: ParseAnswer): Error {
  return Object.assign(new Error(a.error), { code: a.code, syscall: a.syscall });
}

/**
 * A small young generation: the parse makes short-lived garbage, collected often rather than held. Measured on
 * a 64 MiB log, the process's RSS grew by 113 MB with 16 MB, 90 MB with 8 MB and 85 MB with 4 MB, for 10.8 s,
 * 11.6 s and 14.5 s of CPU.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 8 };

function startWorker(indexEvery: number): Worker {
  const workerData = { indexEvery };
  const resourceLimits = RESOURCE_LIMITS;
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./parse-worker.mjs', import.meta.url), { workerData, resourceLimits });
  const api = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL('./parse-worker.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(api)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData,
    resourceLimits,
  });
}

/** One parse thread: one import at a time, its requests answered in order (see the top of this file). */
export class ParseThread {
  private readonly worker: Worker;
  /** the requests sent and not answered yet, oldest first (the worker answers in order) */
  private readonly waiting: { resolve: (a: ParseAnswer) => void; reject: (e: Error) => void }[] = [];
  private failed: Error | undefined;

  constructor(indexEvery: number) {
    this.worker = startWorker(indexEvery);
    this.worker.on('message', (a: ParseAnswer) => {
      const w = this.waiting.shift();
      if (a.error === undefined) return w?.resolve(a);
      // the parser threw, or the disk refused: this answer and every one after it fails
      this.failed ??=
        a.syscall === undefined ? new ParseFailed(`the log parser failed: ${a.error}`) : diskError(a);
      w?.reject(this.failed);
    });
    const fail = (e: Error) => {
      this.failed ??= new ParseFailed(`the log parser thread failed: ${e.message}`);
      for (const w of this.waiting.splice(0)) w.reject(this.failed);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    // an idle thread never keeps the server's process alive
    this.worker.unref();
  }

  /** Whether the thread can take another log (it has not failed or been closed). */
  get usable(): boolean {
    return this.failed === undefined && this.waiting.length === 0;
  }

  /**
   * A new log: the parser starts over on the files open as `log` (log.txt, read from its start as it grows),
   * `trace` and `raw` (trace.ndjson and raw.ndjson, empty, both written by the thread). The caller keeps them
   * open until the thread is closed or finish() answered.
   */
  start(fds: { log: number; trace: number; raw: number }): void {
    if (!this.failed) this.worker.postMessage({ start: fds } satisfies ParseRequest);
  }

  /** The log holds `bytes` bytes on disk now: resolves once the thread parsed them and wrote their events. */
  feed(bytes: number): Promise<ParseAnswer> {
    return this.ask({ feed: bytes });
  }

  end(): Promise<ParseAnswer & { summary: ImportSummary }> {
    return this.ask({ end: true }) as Promise<ParseAnswer & { summary: ImportSummary }>;
  }

  /**
   * The log again, block by block in time order, its trace written anew: the events of its first lines, then
   * of the next ones with more(), until an answer carries the summary. Only after end() said blocks > 1.
   */
  merge(): Promise<ParseAnswer> {
    return this.ask({ merge: true });
  }

  more(): Promise<ParseAnswer> {
    return this.ask({ more: true });
  }

  /** After the summary: the trace and the unread entries fsynced; the thread then lets the files go. */
  finish(): Promise<ParseAnswer> {
    return this.ask({ finish: true });
  }

  async close(): Promise<void> {
    this.failed ??= new ParseFailed('closed');
    await this.worker.terminate();
  }

  private ask(req: ParseRequest): Promise<ParseAnswer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(req);
    });
  }
}

/** Parse threads for a store's imports: one kept idle between imports, more while imports overlap. */
export class ParsePool {
  private idle: ParseThread | undefined;

  constructor(private readonly indexEvery: number) {}

  /** A thread for one import; the caller start()s it on its files. */
  acquire(): ParseThread {
    const t = this.idle?.usable ? this.idle : new ParseThread(this.indexEvery);
    if (t !== this.idle) void this.idle?.close();
    this.idle = undefined;
    return t;
  }

  /** Gives a thread back after its import (finished or not): kept if it is usable and none is kept yet. */
  release(t: ParseThread): void {
    if (!this.idle && t.usable) this.idle = t;
    else void t.close();
  }

  async close(): Promise<void> {
    const t = this.idle;
    this.idle = undefined;
    await t?.close();
  }
}
