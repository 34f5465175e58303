/**
 * PatchThread: the pure part of a large PATCH (patch-pod.ts patchedPod: parse, bounds, merge, update check,
 * diff) on a worker thread of its own (patch-worker.ts), so the server's event loop (the engine, /healthz,
 * every other request) does not wait on it: a 1 MiB strategic merge into a 1 MiB pod costs ~470 ms, all of
 * it on the thread. The event loop pays only to copy the pod there and the result back.
 *
 * PatchPool runs one patch at a time on one thread, the next waiting its turn (two cores: the event loop and
 * the thread), and keeps that thread idle between patches (a thread takes a few hundred ms to start). Its heap
 * is bounded (RESOURCE_LIMITS): a patch that needs more kills the thread, not the server, and that request
 * fails with PatchThreadFailed; the next one starts a new thread. From TypeScript sources (the server runs
 * under tsx, whose loader hooks a new thread does not inherit) the thread registers tsx itself first, as the
 * imports' parse thread does (imports/parse-thread.ts).
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { Patched, PatchRequest } from './patch-pod.ts';

/** The thread's answer to one request: what patchedPod returned, or the message of what it threw. */
export type PatchAnswer = { patched: Patched } | { error: string };

/** The thread died under a patch (out of memory, or a bug): that request fails, the server goes on. */
export class PatchThreadFailed extends Error {
  constructor(
    message: string,
    readonly outOfMemory: boolean,
  ) {
    super(message);
  }
}

/**
 * A patched pod is at most BODY_LIMIT_BYTES (1 MiB) of JSON, its patch as much; parsed, cloned and merged they
 * hold some tens of MB. Past this the patch is not one a pod needs.
 */
const RESOURCE_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 };

function startWorker(resourceLimits: ResourceLimits): Worker {
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./patch-worker.mjs', import.meta.url), { resourceLimits });
  const api = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL('./patch-worker.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(api)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    resourceLimits,
  });
}

class PatchThread {
  private readonly worker: Worker;
  private waiting: { resolve: (a: PatchAnswer) => void; reject: (e: Error) => void } | undefined;
  private failed: PatchThreadFailed | undefined;

  constructor(resourceLimits: ResourceLimits) {
    this.worker = startWorker(resourceLimits);
    this.worker.on('message', (a: PatchAnswer) => {
      const w = this.waiting;
      this.waiting = undefined;
      this.worker.unref();
      w?.resolve(a);
    });
    const fail = (e: Error & { code?: string }) => {
      const oom = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      this.failed ??= new PatchThreadFailed(`the patch thread failed: ${e.message}`, oom);
      const w = this.waiting;
      this.waiting = undefined;
      w?.reject(this.failed);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    // an idle thread never keeps the server's process alive
    this.worker.unref();
  }

  get usable(): boolean {
    return this.failed === undefined;
  }

  /** One patch; the thread takes one at a time (PatchPool sees to it). */
  run(req: PatchRequest): Promise<PatchAnswer> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.ref();
      this.worker.postMessage(req);
    });
  }

  async close(): Promise<void> {
    this.failed ??= new PatchThreadFailed('closed', false);
    await this.worker.terminate();
  }
}

/** One patch thread, kept between patches; patches wait their turn for it. */
export class PatchPool {
  private thread: PatchThread | undefined;
  /** the last patch sent, settled or not: the next one runs after it */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly resourceLimits: ResourceLimits = RESOURCE_LIMITS) {}

  /** patchedPod(req) on the thread; rejects with PatchThreadFailed if the thread dies under it. */
  run(req: PatchRequest): Promise<PatchAnswer> {
    const turn = this.last.then(() => {
      if (!this.thread?.usable) this.thread = new PatchThread(this.resourceLimits);
      return this.thread.run(req);
    });
    this.last = turn.catch(() => undefined);
    return turn;
  }

  async close(): Promise<void> {
    const t = this.thread;
    this.thread = undefined;
    await t?.close();
  }
}
