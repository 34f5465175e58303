import type { PassiveClock } from '../clock/clock.ts';
import type { TraceEvent, TracePayload } from './trace.ts';

export type TraceListener = (ev: TraceEvent) => void;

/**
 * Reserves seqs durably before they are handed out: given the next seq to issue, returns the highest seq
 * that may be issued. Called synchronously inside record(), so the caller waits for it: it should answer
 * from memory and renew ahead in the background, and block only when nothing is left. Less than `next` is
 * a refusal (the disk would not take the reservation); it must not throw.
 */
export type SeqReserver = (next: number) => number;

/** Events held while no seq can be reserved, at most; later ones are dropped and counted (`dropped`). */
export const HELD_EVENTS_MAX = 100_000;
/** While the reserver refuses, record() asks it again at most this often (engine time); resume() at once. */
export const RESERVE_RETRY_MS = 1_000;

/** Events history() reads from the ring per step. */
const HISTORY_PAGE = 1_000;

/** A listener that threw and was removed: what it was (its name at subscribe), where, and why. */
export interface ListenerFailure {
  name: string;
  seq: number;
  type: TraceEvent['type'];
  error: string;
}

/**
 * TraceRecorder: the engine's journal in memory. Every component records through one instance; `record`
 * stamps seq (strictly increasing) and time (the engine clock), keeps the newest `capacity` events in a
 * ring, and calls listeners synchronously (the server's WebSocket fan-out and the on-disk journal).
 * Listeners must not throw and must not block; a listener that throws is removed, and that is logged with
 * its error (console.error) and kept in `failures`, since whatever it did (the journal, a stream) stops from
 * then on: the server reports those on /healthz.
 *
 * record() never throws into the engine. With a reserver (reserveSeqs) a seq is issued only once reserved;
 * while the reserver refuses (a disk that takes no write), events are held in order without a seq (seq 0,
 * their time stamped), seen by no listener and no reader, up to HELD_EVENTS_MAX; once a reservation goes
 * through (the next record() after RESERVE_RETRY_MS, or resume()) they are issued in order before anything
 * newer. So a seq is never served that a crash could hand to another event.
 */
export class TraceRecorder {
  private ring: TraceEvent[] = [];
  private head = 0;
  private nextSeq: number;
  private listeners = new Map<TraceListener, string>();
  private readonly failed: ListenerFailure[] = [];
  private reserver: SeqReserver | undefined;
  /** The seq from which the reserver is asked again (half of its last grant used). */
  private renewAt = Number.POSITIVE_INFINITY;
  /** The highest seq the reserver granted. */
  private limit = Number.POSITIVE_INFINITY;
  /** Events recorded while the reserver refused, oldest first, not yet issued. */
  private held: TraceEvent[] = [];
  /** Engine time before which record() does not ask a refusing reserver again. */
  private retryAt = 0;
  private droppedHeld = 0;
  private resuming = false;

  constructor(
    private readonly clock: PassiveClock,
    readonly capacity = 200_000,
    startSeq = 1,
  ) {
    this.nextSeq = startSeq;
  }

  record(payload: TracePayload): TraceEvent {
    const now = this.clock.now();
    const ev = { ...payload, seq: 0, time: now } as TraceEvent;
    if (this.held.length > 0 && now >= this.retryAt && !this.resuming) this.resume();
    if (this.held.length === 0 && this.nextSeq >= this.renewAt) this.reserve();
    if (this.held.length > 0 || this.nextSeq > this.limit) this.hold(ev);
    else this.issue(ev);
    return ev;
  }

  /**
   * Asks the reserver again now (when a disk that refused may take writes again). Issues the held events
   * once it grants their seqs; true when nothing is held after it.
   */
  resume(): boolean {
    if (!this.reserver || this.resuming) return this.held.length === 0;
    this.resuming = true;
    try {
      this.reserve();
      // a listener may record meanwhile: that event joins the end of `held`, issued in this same loop
      let i = 0;
      while (i < this.held.length && this.nextSeq <= this.limit) {
        this.issue(this.held[i++] as TraceEvent);
        if (this.nextSeq >= this.renewAt && i < this.held.length) this.reserve();
      }
      this.held.splice(0, i);
    } finally {
      this.resuming = false;
    }
    if (this.held.length > 0) this.retryAt = this.clock.now() + RESERVE_RETRY_MS;
    return this.held.length === 0;
  }

  /** Events recorded but not issued: no seq could be reserved for them yet. */
  get holding(): number {
    return this.held.length;
  }

  /** Events dropped because more than HELD_EVENTS_MAX were held. */
  get dropped(): number {
    return this.droppedHeld;
  }

  private hold(ev: TraceEvent): void {
    if (this.held.length === 0) this.retryAt = ev.time + RESERVE_RETRY_MS;
    if (this.held.length < HELD_EVENTS_MAX) this.held.push(ev);
    else this.droppedHeld++;
  }

  private issue(ev: TraceEvent): void {
    (ev as { seq: number }).seq = this.nextSeq++;
    if (this.ring.length < this.capacity) this.ring.push(ev);
    else {
      this.ring[this.head] = ev;
      this.head = (this.head + 1) % this.capacity;
    }
    for (const [l, name] of this.listeners) {
      try {
        l(ev);
      } catch (err) {
        this.listeners.delete(l);
        this.failed.push({ name, seq: ev.seq, type: ev.type, error: String((err as Error)?.message ?? err) });
        console.error(`trace: ${name} threw on event seq ${ev.seq} (${ev.type}) and was removed:`, err);
      }
    }
  }

  /**
   * Fills the ring with events recorded before (the on-disk journal after a restart) without calling
   * listeners. `events` are oldest first; only those older than what the ring holds are taken, the newest
   * `capacity` kept. The next seq stays above every seq held.
   */
  preload(events: readonly TraceEvent[]): void {
    const oldest = this.size > 0 ? this.oldest : Number.POSITIVE_INFINITY;
    const all = [...events.filter((ev) => ev.seq < oldest), ...this.since(0)];
    const merged = all.slice(Math.max(0, all.length - this.capacity));
    this.ring = merged;
    this.head = 0;
    const last = merged[merged.length - 1];
    if (last && last.seq >= this.nextSeq) this.nextSeq = last.seq + 1;
  }

  /**
   * From now on every seq is reserved before it is issued: `reserver` is asked at once for the seqs from
   * `next` on, then again whenever half of what it last granted is used. While it grants less than `next`,
   * events are held (see the class comment).
   */
  reserveSeqs(reserver: SeqReserver): void {
    this.reserver = reserver;
    this.reserve();
  }

  private reserve(): void {
    const next = this.nextSeq;
    const upTo = (this.reserver as SeqReserver)(next);
    this.limit = Math.max(upTo, next - 1);
    this.renewAt = upTo >= next ? next + Math.ceil((upTo - next + 1) / 2) : next;
  }

  /** The seq the next event will get. */
  get next(): number {
    return this.nextSeq;
  }

  /** Oldest seq still held in memory (0 if empty). */
  get oldest(): number {
    return this.size === 0 ? 0 : (this.at(0) as TraceEvent).seq;
  }

  get size(): number {
    return this.ring.length;
  }

  /** Events with seq > since, oldest first, optionally filtered; at most `limit`. */
  since(since = 0, filter?: (ev: TraceEvent) => boolean, limit = Number.POSITIVE_INFINITY): TraceEvent[] {
    const out: TraceEvent[] = [];
    const n = this.ring.length;
    // binary search for the first index with seq > since
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.at(mid) as TraceEvent).seq <= since) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < n && out.length < limit; i++) {
      const ev = this.at(i) as TraceEvent;
      if (!filter || filter(ev)) out.push(ev);
    }
    return out;
  }

  /** True for every `after`: the ring is all this recorder holds, so since(after) is the whole answer. */
  ringCovers(_after: number): boolean {
    return true;
  }

  /** since() as a promise, for readers of a trace that may have to reach the disk: answered at once. */
  sinceAsync(
    since = 0,
    filter?: (ev: TraceEvent) => boolean,
    limit = Number.POSITIVE_INFINITY,
  ): Promise<TraceEvent[]> {
    return Promise.resolve(this.since(since, filter, limit));
  }

  /**
   * Every event with seq > since, oldest first, optionally filtered, read from the ring HISTORY_PAGE events
   * at a time. Runs until the newest event, including those recorded while it is read; the caller stops.
   */
  async *history(since = 0, filter?: (ev: TraceEvent) => boolean): AsyncGenerator<TraceEvent> {
    let cursor = since;
    for (;;) {
      const page = this.since(cursor, undefined, HISTORY_PAGE);
      const last = page[page.length - 1];
      if (!last) return;
      cursor = last.seq;
      for (const ev of page) if (!filter || filter(ev)) yield ev;
    }
  }

  /** Calls `l` with every event recorded from now on; `name` says what it does when it fails (failures). */
  subscribe(l: TraceListener, name = 'a listener'): () => void {
    this.listeners.set(l, name);
    return () => this.listeners.delete(l);
  }

  /** The listeners that threw and were removed, oldest first. */
  get failures(): readonly ListenerFailure[] {
    return this.failed;
  }

  private at(i: number): TraceEvent | undefined {
    return this.ring[(this.head + i) % this.ring.length];
  }
}
