/**
 * Pod state from a trace (`@syncscope/core` and, browser-safe, this folder): PodStateReducer folds the
 * engine's, an imported log's or an observer's events into each pod's and container's state as the kubelet
 * would report it, each fact stated, inferred by a named rule, or unknown. See ./types.ts and ./reducer.ts.
 */

export {
  type BackoffConfig,
  type BackoffConstants,
  backoffConstants,
  backoffRuleWords,
} from './backoff-rule.ts';
export { NodeAggregateFold } from './node-aggregates.ts';
export {
  AGGREGATE_BUCKET_MS,
  AGGREGATE_WINDOW_MS,
  type AggregateParts,
  type DeletedPod,
  type FaultBeat,
  type HousekeepingBeat,
  LOOP_SOURCE_ORDER,
  type LoopSecond,
  MAX_DELETED,
  type NodeAggregatesWire,
  type RelistBeat,
  type SkippedBeat,
} from './node-aggregates-wire.ts';
export { PodStateReducer } from './reducer.ts';
export { cellTitle, type PodRowSummary, podRowSummary, type RowCell, sameRow } from './row.ts';
export { decodeRows, encodeRows, type WireRow, type WireRows } from './row-wire.ts';
export { exitReason, RULES } from './rules.ts';
export { toContainerStatus } from './snapshot.ts';
export { DEFAULT_GRACE_S, podTrouble, type Trouble, type TroubleKind } from './trouble.ts';
export type {
  BackoffRungState,
  BackoffState,
  Basis,
  ContainerSnapshot,
  ContainerStateInfo,
  Fact,
  GraceState,
  PodSnapshot,
  ProbeState,
  Source,
  SyncErrorState,
  WorkerStateName,
} from './types.ts';
export { factValue, provenance } from './types.ts';
