/**
 * NodeRows: the node page's pods table kept on the server. Every trace event (the engine's, or the
 * observer's) is folded by core's PodStateReducer; TICK_MS after the first event that touches a pod (no timer
 * runs while nothing happens) the pods touched since the last tick get
 * their row again (podRowSummary) and the rows that read differently become one batch under a new cursor.
 * So a pod whose events arrive at 50 Hz changes its row at most 1000/TICK_MS times a second, and a batch
 * holds each changed row once, however many events it took.
 *
 *   add(ev)           O(1): fold, remember the pod's newest event, mark the pod
 *   tick()            O(pods marked): their snapshots and rows, the batch to every listener
 *   rows()            every row and the cursor they are current to (the first screen)
 *   row(ns, name)     one pod's row (a pod page's header), O(pods listed)
 *   since(cursor)     what changed after `cursor`: the changed rows and the removed uids, or every row when
 *                     the cursor is from another run of the server or older than the removals kept
 *
 * A cursor is "<run>.<batch>": the run tells this server's cursors from an earlier one's, whose numbers
 * mean nothing here. Memory: one row and one reducer fold per pod listed (a removed pod's fold is forgotten
 * once its removal is sent), and the newest MAX_REMOVALS removals.
 */
import type { Clock, Timer } from '@syncscope/core/clock';
import { type PodRowSummary, PodStateReducer, podRowSummary, sameRow } from '@syncscope/core/pod-state';
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';
import { eventLabel } from './label.ts';

/** How often rows are worked out and sent: each row at most 4 times a second. */
export const TICK_MS = 250;
/** Removals remembered for a resume; a cursor older than the oldest forgotten one gets every row. */
const MAX_REMOVALS = 10_000;

/** What the rows' page does not find in the trace: a pod's creation and default grace period. */
export type PodSpecFacts = (uid: string) => { created?: number; graceS?: number } | undefined;

export interface RowsBatch {
  cursor: string;
  rows: PodRowSummary[];
  removed: string[];
}

/** An answer to a resume: the changes, or (`full`) every row, the client's own to be dropped. */
export type RowsAnswer = RowsBatch & { full: boolean };

export type RowsListener = (batch: RowsBatch) => void;

export interface NodeRowsOptions {
  clock: Pick<Clock, 'setTimer'>;
  specFacts?: PodSpecFacts;
  /** the run's name in cursors (default: this process's start, base 36) */
  run?: string;
  maxRemovals?: number;
}

export class NodeRows {
  private readonly reducer = new PodStateReducer();
  /** the newest event of every pod that has a row, or will have one at the next tick */
  private readonly newest = new Map<string, TraceEvent>();
  private readonly marked = new Set<string>();
  private readonly table = new Map<string, { row: PodRowSummary; batch: number }>();
  private readonly removals: { uid: string; batch: number }[] = [];
  /** removed pods whose fold was dropped, oldest first (at most maxRemovals) */
  private readonly gone = new Set<string>();
  private removalsStart = 0;
  /** a resume from before this batch may have missed a removal that is no longer remembered */
  private floor = 0;
  private batch = 0;
  private readonly listeners = new Set<RowsListener>();
  /** the pending tick, armed by the first event after the last one */
  private timer: Timer | undefined;
  private closed = false;
  private readonly run: string;
  private readonly maxRemovals: number;

  constructor(private readonly opts: NodeRowsOptions) {
    this.run = opts.run ?? Date.now().toString(36);
    this.maxRemovals = opts.maxRemovals ?? MAX_REMOVALS;
  }

  /** Folds one event (events in seq order). */
  add(ev: TraceEvent): void {
    const uid = podUIDOf(ev);
    // a removed pod's late events (container GC after the REMOVE) do not bring it back: a uid is never reused
    if (uid !== undefined && this.gone.has(uid)) return;
    this.reducer.add(ev);
    if (uid === undefined || !('pod' in ev)) return;
    this.newest.set(uid, ev);
    this.marked.add(uid);
    if (!this.timer && !this.closed)
      this.timer = this.opts.clock.setTimer(TICK_MS, () => {
        this.timer = undefined;
        this.tick();
      });
  }

  /** The cursor of the newest batch. */
  get cursor(): string {
    return `${this.run}.${this.batch}`;
  }

  /** Calls `l` with every batch from now on; returns the unsubscribe. */
  subscribe(l: RowsListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Every row (in no particular order) and the cursor it is current to. */
  rows(): { cursor: string; rows: PodRowSummary[] } {
    return { cursor: this.cursor, rows: [...this.table.values()].map((e) => e.row) };
  }

  /** The row of the pod `namespace/name` (the newest, should a name have been reused), if it has one. */
  row(namespace: string, name: string): PodRowSummary | undefined {
    let found: PodRowSummary | undefined;
    for (const { row } of this.table.values())
      if (row.name === name && row.namespace === namespace && (!found || row.created >= found.created))
        found = row;
    return found;
  }

  /**
   * What changed after `cursor` (a cursor this store gave). O(pods): a resume scans the rows once. Every
   * row (`full`) when the cursor is another run's, from the future, or older than the removals kept.
   */
  since(cursor: string): RowsAnswer {
    const dot = cursor.lastIndexOf('.');
    const n = Number(cursor.slice(dot + 1));
    if (cursor.slice(0, dot) !== this.run || n > this.batch || n < this.floor)
      return { ...this.rows(), removed: [], full: true };
    const rows: PodRowSummary[] = [];
    for (const e of this.table.values()) if (e.batch > n) rows.push(e.row);
    const removed: string[] = [];
    for (let i = this.removals.length - 1; i >= this.removalsStart; i--) {
      const r = this.removals[i] as { uid: string; batch: number };
      if (r.batch <= n) break;
      if (!this.table.has(r.uid)) removed.push(r.uid);
    }
    return { cursor: this.cursor, rows, removed, full: false };
  }

  /** Works out the marked pods' rows and sends the batch of those that changed. */
  tick(): void {
    if (this.marked.size === 0) return;
    const b = this.batch + 1;
    const rows: PodRowSummary[] = [];
    const removed: string[] = [];
    for (const uid of this.marked) {
      const s = this.reducer.snapshot(uid);
      const ev = this.newest.get(uid);
      if (!s || s.removed || !ev) {
        this.newest.delete(uid);
        if (s?.removed) this.forget(uid);
        if (this.table.delete(uid)) {
          removed.push(uid);
          this.remember(uid, b);
        }
        continue;
      }
      const spec = this.opts.specFacts?.(uid);
      const row = podRowSummary(s, { ...spec, lastLabel: eventLabel(ev) });
      const old = this.table.get(uid);
      if (old && sameRow(old.row, row)) continue;
      this.table.set(uid, { row, batch: b });
      rows.push(row);
    }
    this.marked.clear();
    if (rows.length === 0 && removed.length === 0) return;
    this.batch = b;
    const out: RowsBatch = { cursor: this.cursor, rows, removed };
    for (const l of this.listeners) l(out);
  }

  /** Drops a removed pod's fold; its uid is kept among the newest maxRemovals, so late events are ignored. */
  private forget(uid: string): void {
    this.reducer.forget(uid);
    this.gone.add(uid);
    if (this.gone.size > this.maxRemovals) {
      const oldest = this.gone.values().next().value as string;
      this.gone.delete(oldest);
    }
  }

  private remember(uid: string, batch: number): void {
    this.removals.push({ uid, batch });
    if (this.removals.length - this.removalsStart <= this.maxRemovals) return;
    const dropped = this.removals[this.removalsStart++] as { batch: number };
    this.floor = dropped.batch;
    // compact now and then, so the array stays within twice the cap
    if (this.removalsStart >= this.maxRemovals) {
      this.removals.splice(0, this.removalsStart);
      this.removalsStart = 0;
    }
  }

  close(): void {
    this.closed = true;
    this.timer?.stop();
    this.timer = undefined;
    this.listeners.clear();
  }
}
