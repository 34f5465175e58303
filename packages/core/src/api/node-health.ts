/**
 * The node's health as the server judges it, where the beats happen: part of GET /api/v1/node (`health`).
 * A page never judges a stall from when events reach it (its own lag or the network's would read as the
 * kubelet's); it shows this answer, and says it is behind when the answer is late.
 */

/** The three beats of the kubelet's loops: sync-loop turns, PLEG relists, housekeeping runs. */
export type BeatName = 'loop' | 'relist' | 'housekeeping';

export interface ServerBeat {
  /** engine ms of the newest beat; null before the first one */
  last: number | null;
  /** the server's wall ms of the same beat; null with `last` */
  lastWall: number | null;
  /** how often it beats: the ticker's period, or the back-off a skipped loop turn waits */
  periodMs: number;
  /** engine ms without a beat when the answer was made (from `last`, or from the start before the first) */
  silentMs: number;
  /** silent for longer than `thresholdMs` (a beat that never came is not stalled: the page says "none yet") */
  stalled: boolean;
  /** the rule: PLEG Healthy()'s relist threshold; twice the period for the loop and housekeeping */
  thresholdMs: number;
}

/** The kubelet's own /healthz check of the sync loop (server.go syncLoopHealthCheck). */
export interface SyncLoopHealthz {
  /** max(2 × resync interval, 5 min): the loop may not go longer without entering an iteration */
  thresholdMs: number;
  ok: boolean;
  /** the check's error text when failing ("sync Loop took longer than expected"), else '' */
  message: string;
}

/** The server's own event loop (perf_hooks monitorEventLoopDelay) over its last complete window. */
export interface EventLoopLag {
  meanMs: number;
  p99Ms: number;
  maxMs: number;
  windowMs: number;
}

export interface NodeHealth {
  /** engine ms when the answer was made */
  at: number;
  /** the server's wall ms when the answer was made */
  atWall: number;
  /** null for what this server cannot see (observe mode sees only the PLEG) */
  beats: Record<BeatName, ServerBeat | null>;
  /** null when the loop is not visible (observe mode) */
  syncLoopHealthz: SyncLoopHealthz | null;
  eventLoop: EventLoopLag;
}
