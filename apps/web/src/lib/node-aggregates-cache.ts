/**
 * The node's aggregates as the page caches them: the server's (GET /api/v1/node/aggregates, then the
 * batches of /api/v1/node/aggregates/stream) with the cursor the stream resumes after. Pure: a batch gives a
 * new state, merged by key (a second by its start, a beat by its seq, a deleted pod by its uid), and drops
 * what fell out of the server's window; a batch marked `full` replaces everything. O(entries held) per
 * batch, and the server sends at most four a second, so the page's work does not follow the event rate.
 *
 * A replay folds its own trace with the same fold the server runs (core's NodeAggregateFold), so the loop
 * strip, the cadence and the deleted pods read one shape whichever the source.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import {
  AGGREGATE_BUCKET_MS,
  MAX_DELETED,
  NodeAggregateFold,
  type NodeAggregatesWire,
} from './pod-state-core.ts';

export type NodeAggregatesState = Omit<NodeAggregatesWire, 'full'>;

const EMPTY_LISTS = { loop: [], relists: [], housekeeping: [], skipped: [], faults: [], deleted: [] };

/** Nothing yet: no event folded. */
export function emptyAggregates(): NodeAggregatesState {
  return { cursor: '', from: null, windowStart: 0, ...EMPTY_LISTS };
}

/** Entries `old` then `added` by seq, those `added` already holds left out, none before `start`. */
function mergeBeats<T extends { seq: number; time: number }>(
  old: readonly T[],
  added: readonly T[],
  start: number,
) {
  const lastSeq = old.length > 0 ? (old[old.length - 1] as T).seq : 0;
  const out = old.filter((b) => b.time >= start);
  for (const b of added) if (b.seq > lastSeq && b.time >= start) out.push(b);
  return out;
}

/** Applies one batch (or a whole answer). */
export function applyAggregates(
  old: NodeAggregatesState | undefined,
  b: NodeAggregatesWire,
): NodeAggregatesState {
  const { full: _full, ...value } = b;
  if (!old || b.full) return value;
  const start = b.windowStart;
  const byT = new Map(old.loop.filter((s) => s.t >= start - AGGREGATE_BUCKET_MS).map((s) => [s.t, s]));
  for (const s of b.loop) byT.set(s.t, s);
  const added = new Set(b.deleted.map((d) => d.uid));
  return {
    cursor: b.cursor,
    from: old.from ?? b.from,
    windowStart: start,
    loop: [...byT.values()].sort((x, y) => x.t - y.t),
    relists: mergeBeats(old.relists, b.relists, start),
    housekeeping: mergeBeats(old.housekeeping, b.housekeeping, start),
    skipped: mergeBeats(old.skipped, b.skipped, start),
    faults: mergeBeats(old.faults, b.faults, start),
    deleted: [...b.deleted, ...old.deleted.filter((d) => !added.has(d.uid))].slice(0, MAX_DELETED),
  };
}

/** Checks the shape of a message or an answer; undefined when it is not aggregates. */
export function parseAggregates(data: unknown): NodeAggregatesWire | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const m = data as Partial<NodeAggregatesWire>;
  const lists = [m.loop, m.relists, m.housekeeping, m.skipped, m.faults, m.deleted];
  if (typeof m.cursor !== 'string' || typeof m.windowStart !== 'number' || !lists.every(Array.isArray))
    return undefined;
  return { ...(m as NodeAggregatesWire), full: m.full === true };
}

/** A stream message, parsed; undefined when it is not an aggregates batch. */
export function parseAggregatesMessage(text: string): NodeAggregatesWire | undefined {
  try {
    const msg = JSON.parse(text) as { kind?: string };
    return msg?.kind === 'aggregates' ? parseAggregates(msg) : undefined;
  } catch {
    return undefined;
  }
}

/** The aggregates of a trace held whole (a replay's, a test's): every event through the server's fold. */
export function aggregatesOf(events: readonly TraceEvent[]): NodeAggregatesState {
  const fold = new NodeAggregateFold();
  for (const ev of events) fold.add(ev, 1);
  return { cursor: '', ...fold.changedAfter(0) };
}
