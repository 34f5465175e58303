/**
 * ParseThread: the kubelet log parser of one import on a worker thread of its own (parse-worker.ts), so the
 * server's event loop (the engine, /healthz, every other request) never waits on a parse: a 12 MB log of
 * deeply nested JSON lines or a 48 KB run of digits costs the parser seconds, all of them on the worker.
 *
 * Requests are answered in order, and may be sent before the last is answered (the body is read at the
 * network's pace, the parse follows): start() begins a log, feed(chunk) resolves with what the chunk
 * released, end() with the rest, the summary and the number of blocks out of time order; merge(path) and
 * more() read such a log again in time order. close() ends the thread. ParsePool keeps one idle thread for the next
 * import (a thread takes a few hundred ms to start: it compiles the parser) and starts more for imports
 * that run at the same time. From TypeScript sources (the server
 * runs under tsx, whose loader hooks a new thread does not inherit) the thread registers tsx itself first, as
 * the import-log encoder's does.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ImportSummary } from '@syncscope/core/kubelet-log';

export type ParseRequest =
  | { start: true }
  | { chunk: Uint8Array }
  | { end: true }
  | { merge: string }
  | { more: true }
  | { raw: { log: string; out: string } };
export interface ParseAnswer {
  /** NDJSON of the events released, UTF-8 */
  bytes: Uint8Array;
  /** trace byte offsets of the events numbered k·indexEvery among them */
  offsets: number[];
  summary?: ImportSummary;
  /** with the answer to end: in how many blocks out of time order the log's lines fall */
  blocks?: number;
  /** with the answer to raw: how many unread entries were written */
  raws?: number;
  error?: string;
}

/** The parser threw (a bug, or memory): the import fails with this, nothing is kept. */
export class ParseFailed extends Error {}

/** A small young generation: the parse makes short-lived garbage, collected often rather than held (RSS). */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 16 };

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

class ParseThread {
  private readonly worker: Worker;
  /** the requests sent and not answered yet, oldest first (the worker answers in order) */
  private readonly waiting: { resolve: (a: ParseAnswer) => void; reject: (e: Error) => void }[] = [];
  private failed: Error | undefined;

  constructor(indexEvery: number) {
    this.worker = startWorker(indexEvery);
    this.worker.on('message', (a: ParseAnswer) => {
      const w = this.waiting.shift();
      if (a.error === undefined) return w?.resolve(a);
      // the parser threw: this answer and every one after it fails
      this.failed ??= new ParseFailed(`the log parser failed: ${a.error}`);
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

  /** A new log: the parser starts over. */
  start(): void {
    if (!this.failed) this.worker.postMessage({ start: true } satisfies ParseRequest);
  }

  feed(chunk: Uint8Array): Promise<ParseAnswer> {
    return this.ask({ chunk });
  }

  end(): Promise<ParseAnswer & { summary: ImportSummary }> {
    return this.ask({ end: true }) as Promise<ParseAnswer & { summary: ImportSummary }>;
  }

  /**
   * The log again, from `path` (the log as kept), block by block in time order: the events of its first lines,
   * then of the next ones with more(), until an answer carries the summary. Only after end() said blocks > 1.
   */
  merge(path: string): Promise<ParseAnswer> {
    return this.ask({ merge: path });
  }

  more(): Promise<ParseAnswer> {
    return this.ask({ more: true });
  }

  /** After the summary: the log's unread entries, written to `out` with their offsets in `log` (raw-file.ts). */
  raw(log: string, out: string): Promise<ParseAnswer> {
    return this.ask({ raw: { log, out } });
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

  acquire(): ParseThread {
    const t = this.idle?.usable ? this.idle : new ParseThread(this.indexEvery);
    if (t !== this.idle) void this.idle?.close();
    this.idle = undefined;
    t.start();
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
