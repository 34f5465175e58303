/**
 * Reflector (client-go tools/cache/reflector.go, ListAndWatch): keeps a sink in step with one resource on the
 * API server through list and watch only.
 *
 *   list   GET <path>?fieldSelector=…&limit=500 (&continue=… for the next page) → sink.replace(items); the
 *          List's resourceVersion is where the watch starts.
 *   watch  GET <path>?watch=true&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=300..600 →
 *          sink.event(ADDED | MODIFIED | DELETED, object) per line; a BOOKMARK only moves RV on. When the
 *          server ends the watch it is opened again from RV.
 *   410    (HTTP 410, or an ERROR event whose Status says 410 Gone: RV is older than the server keeps) → list
 *          again, at once.
 *   errors (connection refused or lost, a 5xx, a watch that ends at once with nothing) → wait, then go on from
 *          where it was; the wait starts at 800 ms and doubles up to 30 s, and is back at 800 ms once a list
 *          or a watch event has come through (the reflector's backoff manager).
 *   a server that answers a watch with a List (it does not serve watch for this resource) → that List is
 *          taken as a list, and the resource is listed again every `pollMs`.
 *
 * Waits run on the injectable clock. stop() ends the watch and any wait at once.
 */
import type { Clock } from '@syncscope/core/clock';
import type { KubeClient, Query } from './kube-client.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface KubeObject {
  metadata?: { resourceVersion?: string; uid?: string; name?: string; namespace?: string };
}

export interface ReflectorSink<T extends KubeObject> {
  /** The full list: what it does not hold is gone. */
  replace(items: T[]): void;
  event(type: WatchEventType, obj: T): void;
}

export interface ReflectorOptions<T extends KubeObject> {
  client: KubeClient;
  /** e.g. /api/v1/pods */
  path: string;
  fieldSelector?: string;
  clock: Clock;
  sink: ReflectorSink<T>;
  warn: (msg: string) => void;
  /** A resource the server does not watch is listed again this often (default 10 s). */
  pollMs?: number;
}

const PAGE = 500;
const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;
/** A watch that ends within this long having sent nothing is an error (client-go: "very short watch"). */
const SHORT_WATCH_MS = 1_000;
const MIN_WATCH_S = 300;
/** A List larger than this many items in all is refused (memory stays bounded). */
const MAX_ITEMS = 100_000;

type WatchEnd = 'ended' | 'expired' | 'listed' | 'error';

interface StatusLike {
  kind?: string;
  code?: number;
  message?: string;
}

export class Reflector<T extends KubeObject> {
  private rv = '';
  private needList = true;
  private backoffMs = BACKOFF_INITIAL_MS;
  private readonly stopping = new AbortController();
  private current: { abort(): void } | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly o: ReflectorOptions<T>) {}

  /** The resourceVersion the next watch starts from ('' before the first list). */
  get resourceVersion(): string {
    return this.rv;
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.current?.abort();
    await this.running;
  }

  private get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let end: WatchEnd;
      try {
        if (this.needList) await this.list();
        end = await this.watch();
      } catch (e) {
        if (this.stopped) return;
        this.o.warn(`${this.o.path}: ${(e as Error).message}`);
        end = 'error';
      }
      if (end === 'expired') this.needList = true;
      else if (end === 'listed') await this.wait(this.o.pollMs ?? 10_000);
      else if (end === 'error') {
        await this.wait(this.backoffMs);
        this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
      }
    }
  }

  private async wait(ms: number): Promise<void> {
    await this.o.clock.sleep(ms, this.stopping.signal).catch(() => undefined);
  }

  private fields(): Query {
    return this.o.fieldSelector !== undefined ? { fieldSelector: this.o.fieldSelector } : {};
  }

  private async list(): Promise<void> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const q: Query = { ...this.fields(), limit: String(PAGE), ...(cont ? { continue: cont } : {}) };
      const { status, body } = await this.o.client.get(this.o.path, q, this.stopping.signal);
      const list = body as {
        items?: T[];
        metadata?: { resourceVersion?: string; continue?: string };
      } & StatusLike;
      if (status !== 200 || !Array.isArray(list.items))
        throw new Error(`list: HTTP ${status}: ${list.message ?? 'not a List'}`);
      if (items.length + list.items.length > MAX_ITEMS) throw new Error(`list: more than ${MAX_ITEMS} items`);
      items.push(...list.items);
      if (!cont) rv = list.metadata?.resourceVersion ?? '';
      cont = list.metadata?.continue || undefined;
    } while (cont && !this.stopped);
    if (this.stopped) return;
    this.rv = rv;
    this.needList = false;
    this.backoffMs = BACKOFF_INITIAL_MS;
    this.o.sink.replace(items);
  }

  private async watch(): Promise<WatchEnd> {
    const started = this.o.clock.now();
    let lines = 0;
    let end: WatchEnd | undefined;
    let reason = '';
    const q: Query = {
      ...this.fields(),
      watch: 'true',
      resourceVersion: this.rv,
      allowWatchBookmarks: 'true',
      timeoutSeconds: String(MIN_WATCH_S + Math.floor(Math.random() * MIN_WATCH_S)),
    };
    const handle = this.o.client.watch(this.o.path, q, (text) => {
      if (end !== undefined || this.stopped) return;
      lines++;
      let v: { type?: string; object?: T & StatusLike; items?: T[] } & StatusLike;
      try {
        v = JSON.parse(text);
      } catch {
        end = 'error';
        reason = 'a watch line that is not JSON';
        handle.abort();
        return;
      }
      if (Array.isArray(v.items)) {
        end = 'listed';
        this.backoffMs = BACKOFF_INITIAL_MS;
        this.o.sink.replace(v.items);
        return;
      }
      const status: StatusLike | undefined =
        v.kind === 'Status' ? v : v.type === 'ERROR' ? v.object : undefined;
      if (status) {
        end = status.code === 410 ? 'expired' : 'error';
        reason = status.message ?? `code ${status.code}`;
        handle.abort();
        return;
      }
      const obj = v.object;
      const rv = obj?.metadata?.resourceVersion;
      if (rv) this.rv = rv;
      if (v.type === 'ADDED' || v.type === 'MODIFIED' || v.type === 'DELETED') {
        this.backoffMs = BACKOFF_INITIAL_MS;
        this.o.sink.event(v.type, obj as T);
      }
    });
    this.current = handle;
    if (this.stopped) handle.abort();
    let status = 0;
    try {
      status = await handle.done;
    } catch (e) {
      // the stream cut by this side once it had said how it ends
      if (end === undefined) throw e;
    } finally {
      this.current = undefined;
    }
    if (end === undefined && status === 410) end = 'expired';
    if (end === undefined && status !== 200) {
      end = 'error';
      reason = `HTTP ${status}`;
    }
    if (end === undefined && lines === 0 && this.o.clock.now() - started < SHORT_WATCH_MS) {
      end = 'error';
      reason = 'the watch ended at once';
    }
    if (end === 'error' && !this.stopped) this.o.warn(`${this.o.path}: watch: ${reason}`);
    return end ?? 'ended';
  }
}
