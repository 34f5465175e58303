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
 *
 * What crosses between the two is kept small (SharedTrees): a large list or object (LARGE_ENTRIES entries or
 * more, such as a pod's 28,000-entry env) the other side already holds from the exchange before goes as a
 * reference, not a copy; the thread sends back the parts of the patched pod equal to the pod it was given as
 * references to those parts, so the event loop neither copies a 1 MiB pod out nor rebuilds one it has. A
 * patch that changes one field of a pod with a long env costs the event loop a few small objects.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { Pod } from '@syncscope/core/api';
import type { Patched, PatchRequest } from './patch-pod.ts';

/** The thread's answer to one request: what patchedPod returned, or the message of what it threw. */
export type PatchAnswer = { patched: Patched } | { error: string };

/** A list or object with this many entries or more is sent as a reference once the other side holds it. */
const LARGE_ENTRIES = 16;

/**
 * A reference in place of a large list or object: `ref` the one with this id the other side holds, or `def`
 * one it is to hold under this id from now on (`value`, itself encoded). A Map, since no JSON value is one.
 */
type Marker = Map<'ref' | 'def' | 'value', unknown>;

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] =>
  typeof v === 'object' && v !== null;

/**
 * One side's table of the large lists and objects both sides hold: the ids of the last exchange (request
 * and answer), each side's own copy under the same id. The event loop's ids are positive, the thread's
 * negative, so neither reuses the other's.
 */
export class SharedTrees {
  /** What the last settled exchange named, and what this one has named so far. */
  private byId = new Map<number, unknown>();
  private next = new Map<number, unknown>();
  /** This side's object → its id, for both tables. */
  private ids = new WeakMap<object, number>();
  private lastId = 0;

  constructor(private readonly sign: 1 | -1) {}

  /**
   * `value` to send: a large container the other side holds becomes a `ref`, any other large one a `def`;
   * `like` (the thread: the pod it was given) offers its parts equal by `equal` as refs. Returns `value`
   * itself where nothing inside changed.
   */
  encode(value: unknown, like?: unknown, equal?: (a: unknown, b: unknown) => boolean): unknown {
    if (!isContainer(value)) return value;
    const held = this.ids.get(value);
    if (held !== undefined) return this.ref(held, value);
    if (equal && isContainer(like) && Array.isArray(like) === Array.isArray(value)) {
      const id = this.ids.get(like);
      if (id !== undefined && equal(value, like)) return this.ref(id, like);
    }
    let out: Record<string, unknown> | unknown[] = value;
    const likeOf = (k: string | number) =>
      isContainer(like) ? (like as Record<string | number, unknown>)[k] : undefined;
    const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
    for (const k of keys) {
      const was = (value as Record<string | number, unknown>)[k];
      const v = this.encode(was, likeOf(k), equal);
      if (v === was) continue;
      if (out === value) out = Array.isArray(value) ? [...value] : { ...value };
      (out as Record<string | number, unknown>)[k] = v;
    }
    if (keys.length < LARGE_ENTRIES) return out;
    this.lastId += 1;
    const id = this.sign * this.lastId;
    this.hold(id, value);
    return new Map<'ref' | 'def' | 'value', unknown>([
      ['def', id],
      ['value', out],
    ]);
  }

  /** What the other side sent, its references resolved to this side's copies and its defs kept. */
  decode(value: unknown): unknown {
    if (value instanceof Map) {
      const m = value as Marker;
      if (m.has('ref')) {
        const id = m.get('ref') as number;
        const mine = this.next.has(id) ? this.next.get(id) : this.byId.get(id);
        if (mine === undefined) throw new Error(`patch thread: no shared tree ${id}`);
        this.hold(id, mine);
        return mine;
      }
      const mine = this.decode(m.get('value'));
      this.hold(m.get('def') as number, mine);
      return mine;
    }
    if (!isContainer(value)) return value;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.decode(value[i]);
    } else {
      for (const k of Object.keys(value)) value[k] = this.decode(value[k]);
    }
    return value;
  }

  /** The exchange is over: from now on both sides hold what it named, and only that. */
  settle(): void {
    this.byId = this.next;
    this.next = new Map();
    this.ids = new WeakMap();
    for (const [id, v] of this.byId) if (isContainer(v)) this.ids.set(v, id);
  }

  /** An exchange that failed: both sides start over holding nothing. */
  reset(): void {
    this.byId = new Map();
    this.next = new Map();
    this.ids = new WeakMap();
  }

  private ref(id: number, mine: unknown): Marker {
    this.hold(id, mine);
    return new Map([['ref', id]]);
  }

  private hold(id: number, mine: unknown): void {
    this.next.set(id, mine);
    if (isContainer(mine)) this.ids.set(mine, id);
  }
}

/** A request as it crosses to the thread: `old` encoded by SharedTrees. */
export interface SharedRequest extends Omit<PatchRequest, 'old'> {
  old: unknown;
}

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
  private readonly shared = new SharedTrees(1);

  constructor(resourceLimits: ResourceLimits) {
    this.worker = startWorker(resourceLimits);
    this.worker.on('message', (a: PatchAnswer) => {
      const w = this.waiting;
      this.waiting = undefined;
      this.worker.unref();
      try {
        if ('patched' in a && a.patched.ok) a.patched.pod = this.shared.decode(a.patched.pod) as Pod;
        if ('error' in a) this.shared.reset();
        else this.shared.settle();
      } catch (e) {
        this.shared.reset();
        a = { error: (e as Error).message };
      }
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
      const sent: SharedRequest = { ...req, old: this.shared.encode(req.old) };
      this.worker.postMessage(sent);
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
