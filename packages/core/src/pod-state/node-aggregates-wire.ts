/**
 * The node aggregates as they travel (GET /api/v1/node/aggregates and its stream) and as the page holds them:
 * the seconds of the loop by source, the relist, housekeeping, skipped and fault beats, the deleted pods.
 * Folded by ./node-aggregates.ts.
 */
import type { LoopSource } from '../events/trace.ts';

/** The sources, in the order a second's counts list them. */
export const LOOP_SOURCE_ORDER: readonly LoopSource[] = ['config', 'pleg', 'sync', 'probe', 'housekeeping'];
/** How much engine time is kept: five minutes. */
export const AGGREGATE_WINDOW_MS = 5 * 60_000;
/** The width of one loop bucket. */
export const AGGREGATE_BUCKET_MS = 1_000;
/** The most beats of one kind kept (a relist a second is 300 in the window). */
export const MAX_BEATS = 1_000;
/** The newest pods removed that are kept. */
export const MAX_DELETED = 100;

/** One second of the loop: iterations per source and the longest one's ms, in LOOP_SOURCE_ORDER. */
export interface LoopSecond {
  /** engine ms at the bucket's start */
  t: number;
  n: number[];
  maxMs: number[];
}

export interface RelistBeat {
  seq: number;
  time: number;
  durationMs: number;
  events: number;
}

export interface HousekeepingBeat {
  seq: number;
  time: number;
  durationMs: number;
  forgotten: number;
  orphansKilled: number;
  restarted: number;
}

export interface SkippedBeat {
  seq: number;
  time: number;
  backoffMs: number;
  errors: string[];
}

export interface FaultBeat {
  seq: number;
  time: number;
  fault: string;
  detail: string;
}

/** A pod that left the node: `deleted` after a graceful DELETE (with its grace), else `removed` outright. */
export interface DeletedPod {
  uid: string;
  namespace: string;
  name: string;
  seq: number;
  time: number;
  how: 'deleted' | 'removed';
  /** the config source that removed it (api, file, http) */
  source: string;
  graceS?: number;
}

/** What the node page reads: the whole state (`full`) or the entries changed after the receiver's cursor. */
export interface NodeAggregatesWire {
  cursor: string;
  full: boolean;
  /** engine ms of the oldest event folded (the data starts there); null before any */
  from: number | null;
  /** engine ms of the window's left edge: a receiver drops entries older than it */
  windowStart: number;
  loop: LoopSecond[];
  relists: RelistBeat[];
  housekeeping: HousekeepingBeat[];
  skipped: SkippedBeat[];
  faults: FaultBeat[];
  /** newest first */
  deleted: DeletedPod[];
}

export type AggregateParts = Omit<NodeAggregatesWire, 'cursor' | 'full'>;
