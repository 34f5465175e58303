import type { PassiveClock } from '../clock/clock.ts';
import type { TraceEvent, TracePayload } from './trace.ts';

export type TraceListener = (ev: TraceEvent) => void;

/**
 * Reserves seqs durably before they are handed out: given the next seq to issue, returns the highest seq
 * that may be issued (>= next). Called synchronously inside record(), so the caller waits for it: it should
 * answer from memory and renew ahead in the background, and block only when nothing is left. Must not throw.
 */
export type SeqReserver = (next: number) => number;

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

  constructor(
    private readonly clock: PassiveClock,
    readonly capacity = 200_000,
    startSeq = 1,
  ) {
    this.nextSeq = startSeq;
  }

  record(payload: TracePayload): TraceEvent {
    if (this.nextSeq >= this.renewAt) this.reserve();
    const ev = { ...payload, seq: this.nextSeq++, time: this.clock.now() } as TraceEvent;
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
    return ev;
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
   * `next` on, then again whenever half of what it last granted is used. A reserver that grants less than
   * `next` is an error (thrown here or from record).
   */
  reserveSeqs(reserver: SeqReserver): void {
    this.reserver = reserver;
    this.reserve();
  }

  private reserve(): void {
    const next = this.nextSeq;
    const upTo = (this.reserver as SeqReserver)(next);
    if (!(upTo >= next)) throw new Error(`trace: seq ${next} asked for, only ${upTo} reserved`);
    this.renewAt = next + Math.ceil((upTo - next + 1) / 2);
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
