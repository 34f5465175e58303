/**
 * The node's loop at a glance, folded from the trace (the engine's, an observer's or a replay's): how many
 * syncLoopIteration rounds each source woke per second (the select in kubelet.go: config, PLEG, sync,
 * probe, housekeeping), every PLEG relist and housekeeping run with its duration, the iterations skipped
 * while the runtime was down, the injected faults, and the pods that left the node (their REMOVE, and
 * whether a graceful DELETE came first). Kept for the newest WINDOW_MS of engine time (the deleted pods: the
 * newest MAX_DELETED), so what the node page reads is small whatever the node's event rate.
 *
 * Each entry carries the batch that last changed it: a receiver that holds everything up to batch n needs
 * only the entries changed after n (`changedAfter`), and drops by itself whatever falls out of the window.
 *
 *   add(ev, batch)        O(1) amortised: one bucket, beat or deletion touched, the window's tail dropped
 *   changedAfter(n)       O(entries held): what a receiver holding batch n lacks
 */
import type { TraceEvent } from '../events/trace.ts';
import {
  AGGREGATE_BUCKET_MS,
  AGGREGATE_WINDOW_MS,
  type AggregateParts,
  type DeletedPod,
  type FaultBeat,
  type HousekeepingBeat,
  LOOP_SOURCE_ORDER,
  type LoopSecond,
  MAX_BEATS,
  MAX_DELETED,
  type RelistBeat,
  type SkippedBeat,
} from './node-aggregates-wire.ts';

interface Stamped<T> {
  batch: number;
  value: T;
}

/** Entries in time order, the oldest dropped from the front: amortised O(1) per push and per drop. */
class TimeWindow<T extends { time?: number; t?: number }> {
  private items: Stamped<T>[] = [];
  private head = 0;

  constructor(private readonly max: number) {}

  push(value: T, batch: number): void {
    this.items.push({ batch, value });
    if (this.items.length - this.head > this.max) this.head++;
  }

  /** The newest entry, for a bucket that is still filling. */
  last(): Stamped<T> | undefined {
    return this.items.length > this.head ? this.items[this.items.length - 1] : undefined;
  }

  dropBefore(start: number): void {
    while (this.head < this.items.length) {
      const v = (this.items[this.head] as Stamped<T>).value;
      if ((v.time ?? v.t ?? 0) >= start) break;
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  changedAfter(n: number): T[] {
    const out: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const e = this.items[i] as Stamped<T>;
      if (e.batch > n) out.push(e.value);
    }
    return out;
  }
}

function splitPodName(pod: string): { namespace: string; name: string } {
  const slash = pod.indexOf('/');
  return slash < 0
    ? { namespace: 'default', name: pod }
    : { namespace: pod.slice(0, slash), name: pod.slice(slash + 1) };
}

export class NodeAggregateFold {
  private readonly loop = new TimeWindow<LoopSecond>(AGGREGATE_WINDOW_MS / AGGREGATE_BUCKET_MS + 1);
  private readonly relists = new TimeWindow<RelistBeat>(MAX_BEATS);
  private readonly housekeeping = new TimeWindow<HousekeepingBeat>(MAX_BEATS);
  private readonly skipped = new TimeWindow<SkippedBeat>(MAX_BEATS);
  private readonly faults = new TimeWindow<FaultBeat>(MAX_BEATS);
  /** newest last */
  private deleted: Stamped<DeletedPod>[] = [];
  /** pods a graceful DELETE was seen for, until their REMOVE: the grace it gave */
  private readonly deleting = new Map<string, number | undefined>();
  private from: number | null = null;
  private newest = Number.NEGATIVE_INFINITY;

  /** Folds one event (events in seq order); true when it changed what the page reads. */
  add(ev: TraceEvent, batch: number): boolean {
    if (this.from === null) this.from = ev.time;
    if (ev.time > this.newest) this.newest = ev.time;
    const changed = this.fold(ev, batch);
    if (changed) this.dropOld();
    return changed;
  }

  private fold(ev: TraceEvent, batch: number): boolean {
    switch (ev.type) {
      case 'loop.iteration': {
        const t = Math.floor(ev.time / AGGREGATE_BUCKET_MS) * AGGREGATE_BUCKET_MS;
        let last = this.loop.last();
        if (!last || last.value.t < t) {
          const zeros = LOOP_SOURCE_ORDER.map(() => 0);
          this.loop.push({ t, n: zeros, maxMs: [...zeros] }, batch);
          last = this.loop.last() as Stamped<LoopSecond>;
        }
        // an iteration stamped a little before the newest bucket counts in it: buckets only grow forward
        const i = LOOP_SOURCE_ORDER.indexOf(ev.source);
        const second = { ...last.value, n: [...last.value.n], maxMs: [...last.value.maxMs] };
        second.n[i] = (second.n[i] ?? 0) + 1;
        second.maxMs[i] = Math.max(second.maxMs[i] ?? 0, ev.durationMs);
        last.value = second;
        last.batch = batch;
        return true;
      }
      case 'pleg.relist':
        this.relists.push(
          { seq: ev.seq, time: ev.time, durationMs: ev.durationMs, events: ev.events },
          batch,
        );
        return true;
      case 'housekeeping':
        this.housekeeping.push(
          {
            seq: ev.seq,
            time: ev.time,
            durationMs: ev.durationMs,
            forgotten: ev.forgotten,
            orphansKilled: ev.orphansKilled,
            restarted: ev.restarted,
          },
          batch,
        );
        return true;
      case 'loop.skipped':
        this.skipped.push({ seq: ev.seq, time: ev.time, backoffMs: ev.backoffMs, errors: ev.errors }, batch);
        return true;
      case 'sim.fault':
        this.faults.push({ seq: ev.seq, time: ev.time, fault: ev.fault, detail: ev.detail }, batch);
        return true;
      case 'config.update':
        if (ev.op === 'DELETE') this.deleting.set(ev.podUID, ev.gracePeriodS);
        if (ev.op !== 'REMOVE') return false;
        return this.removed(ev, batch);
      default:
        return false;
    }
  }

  private removed(ev: Extract<TraceEvent, { type: 'config.update' }>, batch: number): boolean {
    const graceful = this.deleting.has(ev.podUID);
    const graceS = this.deleting.get(ev.podUID);
    this.deleting.delete(ev.podUID);
    this.deleted = this.deleted.filter((d) => d.value.uid !== ev.podUID);
    this.deleted.push({
      batch,
      value: {
        uid: ev.podUID,
        ...splitPodName(ev.pod),
        seq: ev.seq,
        time: ev.time,
        how: graceful ? 'deleted' : 'removed',
        source: ev.source,
        ...(graceS !== undefined ? { graceS } : {}),
      },
    });
    if (this.deleted.length > MAX_DELETED) this.deleted.shift();
    return true;
  }

  private get windowStart(): number {
    return Number.isFinite(this.newest) ? this.newest - AGGREGATE_WINDOW_MS : 0;
  }

  private dropOld(): void {
    const start = this.windowStart;
    this.loop.dropBefore(start - AGGREGATE_BUCKET_MS);
    this.relists.dropBefore(start);
    this.housekeeping.dropBefore(start);
    this.skipped.dropBefore(start);
    this.faults.dropBefore(start);
  }

  /** Every entry changed after batch `n` (every entry held for n < 0), the deleted pods newest first. */
  changedAfter(n: number): AggregateParts {
    const deleted: DeletedPod[] = [];
    for (let i = this.deleted.length - 1; i >= 0; i--) {
      const d = this.deleted[i] as Stamped<DeletedPod>;
      if (d.batch > n) deleted.push(d.value);
    }
    return {
      from: this.from,
      windowStart: this.windowStart,
      loop: this.loop.changedAfter(n),
      relists: this.relists.changedAfter(n),
      housekeeping: this.housekeeping.changedAfter(n),
      skipped: this.skipped.changedAfter(n),
      faults: this.faults.changedAfter(n),
      deleted,
    };
  }
}
