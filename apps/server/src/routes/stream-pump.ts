/**
 * The trace stream's sender, shared by every client of one server: it decides who may serialise and write
 * and when, so a thousand clients asking for their backlog at once cannot keep the event loop from
 * anything else (/healthz, the engine's own timers, REST).
 *
 *   client ──wake()──▶ ready set ──turn (setImmediate)──▶ client.pumpOnce() … round-robin, one page a visit
 *
 * A turn visits the ready clients in order, each writing at most one page, until TURN_BUDGET_MS have been
 * spent; a client that has more to send goes to the back of the line. If anyone is still ready, the next
 * turn is scheduled with setImmediate, so I/O (new requests, sockets draining) is served between turns.
 * Clients wake themselves: when events arrive, and when their socket has drained below the water mark.
 *
 * Pages are cached: clients that read the same stretch of the trace (a crowd of new clients asking for the
 * same backlog, or live clients at the head) share one serialisation. A page is the events with seq in
 * (cursor, cursor + count], which never changes once those events exist, so the cache needs no invalidation;
 * it is bounded by PAGE_CACHE_BYTES, least recently used first out.
 *
 * A page older than the trace's in-memory ring is read from the journal through the thread pool
 * (sinceAsync), never with since()'s blocking read: page() answers undefined meanwhile, and the clients that
 * asked are woken once the page is in the cache. Clients asking for the same page share one read.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import type { TraceSource } from '../context.ts';

/** Longest a turn serialises and writes before it yields to the event loop. */
const TURN_BUDGET_MS = 8;
/** Most events in one message. */
export const BATCH_EVENTS = 500;
const PAGE_CACHE_BYTES = 16 * 1024 * 1024;

/** What the pump drives: one client. */
export interface Pumped {
  /** Writes at most one page. True if the client could write another right away. Never throws. */
  pumpOnce(): boolean;
}

/** A serialised `{kind: 'events'}` message and the last seq in it. */
export interface Page {
  data: Buffer;
  last: number;
}

export class StreamPump {
  private readonly ready = new Set<Pumped>();
  private scheduled = false;
  private readonly pages = new Map<string, Page>();
  private pageBytes = 0;
  /** Pages being read from disk, and the clients to wake when each is in. */
  private readonly loading = new Map<string, Set<Pumped>>();

  constructor(
    private readonly trace: TraceSource,
    private readonly budgetMs = TURN_BUDGET_MS,
  ) {}

  /** Puts a client in line (once; a client already in line keeps its place). */
  wake(c: Pumped): void {
    this.ready.add(c);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  /** Takes a client out of line (it closed). */
  remove(c: Pumped): void {
    this.ready.delete(c);
  }

  /**
   * The events after `cursor` (at most BATCH_EVENTS) as one message; undefined when there are none, or while
   * the page is read from disk (then `waiter` is woken once it is in).
   */
  page(cursor: number, waiter?: Pumped): Page | undefined {
    const count = Math.min(BATCH_EVENTS, this.trace.next - 1 - cursor);
    if (count <= 0) return undefined;
    const key = `${cursor}:${count}`;
    const hit = this.pages.get(key);
    if (hit) {
      // most recently used goes to the end
      this.pages.delete(key);
      this.pages.set(key, hit);
      return hit;
    }
    if (!this.trace.ringCovers(cursor)) {
      this.load(key, cursor, count, waiter);
      return undefined;
    }
    return this.keep(key, this.trace.since(cursor, undefined, count));
  }

  private load(key: string, cursor: number, count: number, waiter?: Pumped): void {
    let waiters = this.loading.get(key);
    if (!waiters) {
      const woken = new Set<Pumped>();
      waiters = woken;
      this.loading.set(key, woken);
      this.trace
        .sinceAsync(cursor, undefined, count)
        .then(
          (events) => void this.keep(key, events),
          () => undefined, // a failed read leaves the page uncached: the woken clients ask again
        )
        .finally(() => {
          this.loading.delete(key);
          for (const c of woken) this.wake(c);
        });
    }
    if (waiter) waiters.add(waiter);
  }

  private keep(key: string, events: TraceEvent[]): Page | undefined {
    const last = events[events.length - 1];
    if (!last) return undefined;
    const page = { data: Buffer.from(JSON.stringify({ kind: 'events', events })), last: last.seq };
    this.pages.set(key, page);
    this.pageBytes += page.data.length;
    for (const [k, p] of this.pages) {
      if (this.pageBytes <= PAGE_CACHE_BYTES) break;
      this.pages.delete(k);
      this.pageBytes -= p.data.length;
    }
    return page;
  }

  private turn(): void {
    this.scheduled = false;
    const deadline = performance.now() + this.budgetMs;
    while (this.ready.size > 0 && performance.now() < deadline) {
      const c = this.ready.values().next().value as Pumped;
      this.ready.delete(c);
      if (c.pumpOnce()) this.ready.add(c);
    }
    if (this.ready.size > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.turn());
    }
  }
}
