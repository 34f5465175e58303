/**
 * NodeAggregates: the node page's loop strip, housekeeping cadence and recently deleted pods, kept here
 * from the trace this server records (core's NodeAggregateFold). TICK_MS after the first event that changes
 * them (no timer runs while nothing does) the entries changed since the last tick become one batch under a
 * new cursor, sent to every listener: at most 1000/TICK_MS batches a second whatever the node's event rate.
 *
 *   add(ev)          O(1) amortised: the fold, the tick armed
 *   current()        everything held and the cursor it is current to (GET /api/v1/node/aggregates)
 *   since(cursor)    what changed after `cursor`, or everything (`full`) when the cursor is another run's
 *                    or from the future
 *
 * A cursor is "<run>.<batch>", as the rows' (../node-rows/store.ts). Nothing needs remembering for a resume:
 * every entry carries its batch, and what left the window the receiver drops by itself (windowStart).
 * Memory: the fold's window (a few thousand small entries).
 */
import type { Clock, Timer } from '@syncscope/core/clock';
import { NodeAggregateFold, type NodeAggregatesWire } from '@syncscope/core/pod-state';
import type { TraceEvent } from '@syncscope/core/trace';

/** At most four batches a second. */
export const TICK_MS = 250;

export type AggregatesListener = (batch: NodeAggregatesWire) => void;

export interface NodeAggregatesOptions {
  clock: Pick<Clock, 'setTimer'>;
  /** the run's name in cursors (default: this process's start, base 36) */
  run?: string;
}

export class NodeAggregates {
  private readonly fold = new NodeAggregateFold();
  private batch = 0;
  private dirty = false;
  private readonly listeners = new Set<AggregatesListener>();
  private timer: Timer | undefined;
  private closed = false;
  private readonly run: string;

  constructor(private readonly opts: NodeAggregatesOptions) {
    this.run = opts.run ?? Date.now().toString(36);
  }

  /** Folds one event (events in seq order). */
  add(ev: TraceEvent): void {
    if (!this.fold.add(ev, this.batch + 1)) return;
    this.dirty = true;
    if (!this.timer && !this.closed)
      this.timer = this.opts.clock.setTimer(TICK_MS, () => {
        this.timer = undefined;
        this.tick();
      });
  }

  get cursor(): string {
    return `${this.run}.${this.batch}`;
  }

  /** Calls `l` with every batch from now on; returns the unsubscribe. */
  subscribe(l: AggregatesListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Everything held (what is pending is sent first, so the cursor covers all of it). */
  current(): NodeAggregatesWire {
    this.tick();
    return { cursor: this.cursor, full: true, ...this.fold.changedAfter(-1) };
  }

  /** What changed after `cursor` (a cursor this store gave), or everything when it cannot tell. */
  since(cursor: string): NodeAggregatesWire {
    this.tick();
    const dot = cursor.lastIndexOf('.');
    const n = Number(cursor.slice(dot + 1));
    if (cursor.slice(0, dot) !== this.run || !(n <= this.batch)) return this.current();
    return { cursor: this.cursor, full: false, ...this.fold.changedAfter(n) };
  }

  /** Closes the batch of what changed since the last tick and sends it. */
  tick(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const n = this.batch;
    this.batch++;
    const out: NodeAggregatesWire = { cursor: this.cursor, full: false, ...this.fold.changedAfter(n) };
    for (const l of this.listeners) l(out);
  }

  close(): void {
    this.closed = true;
    this.timer?.stop();
    this.timer = undefined;
    this.listeners.clear();
  }
}
