/**
 * The back-off inspector's model, from the pod's status and its `backoff` trace events.
 *
 * The engine records a `backoff` event each time a start is refused or a pull fails, so one back-off
 * window (one `until`) can appear many times: every sync during the window repeats it. The ladder keeps one
 * rung per window, in order: initial, doubled, … up to the maximum (10s … 5m0s by default). A rung shorter
 * than the one before means the entry was re-initialised (the container ran long enough without failing,
 * or the entry expired): the ladder "so far" starts there.
 *
 * The constants are the node's (GET /api/v1/node `configuration`, so `--config` changes them here too);
 * until the node answers, core's defaults (kubelet v1.32) stand in.
 */
import type { ContainerStatus, PodStatus } from '@syncscope/core/api';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { goDuration } from './explain.ts';
import { type BackoffConfig, type BackoffConstants, backoffConstants } from './pod-state-core.ts';

export { backoffConstants };

const BACKOFF_REASONS = ['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull'] as const;

export interface BackoffRung {
  /** 1-based position in the ladder shown. */
  n: number;
  delayS: number;
  /** Go-style duration: 10s, 1m20s, 5m0s. */
  label: string;
  /** When the window was first recorded, and when it ends. */
  start: number;
  until: number;
  seq: number;
  exitCode?: number;
  restartCount?: number;
  /** Observe mode: worked out from the observed exits, or stated by the kubelet's own log. */
  basis?: 'inferred' | 'confirmed';
}

export interface BackoffInspection {
  container: string;
  kind: 'container' | 'image';
  /** The waiting reason (CrashLoopBackOff, …) or, between tries, the state in words. */
  reason: string;
  message: string;
  lastExit: { exitCode: number; reason: string; finishedAt: string | null } | null;
  restartCount: number;
  image: string;
  /** The rungs since the last reset; the last one is the current window. */
  ladder: BackoffRung[];
  /** How many windows came before the last reset (0 when none). */
  resets: number;
  current: BackoffRung | null;
  /** ms of engine time until the next try (0 when the window has passed). */
  remainingMs: number;
  /** The delay that follows if the next try fails too. */
  nextDelayS: number;
  /** The node's constants for this kind. */
  constants: BackoffConstants;
}

/** The delay after `delayS`: doubled, capped at the maximum. */
export function nextDelayS(delayS: number, c: BackoffConstants = backoffConstants('container')): number {
  return Math.min(c.maxS, Math.max(c.initialS, delayS * 2));
}

/** One rung per back-off window of a container (and kind), oldest first, with the resets marked. */
export function backoffLadder(
  events: readonly TraceEvent[],
  container: string,
  kind?: 'container' | 'image',
): { rungs: BackoffRung[]; resets: number } {
  const windows: TraceOf<'backoff'>[] = [];
  const seen = new Map<string, number>();
  for (const ev of events) {
    if (ev.type !== 'backoff' || ev.container !== container || (kind && ev.kind !== kind)) continue;
    // one window per exit (the window counts from the exit); a confirmed one replaces an inferred one
    const id = `${ev.key}@${ev.until - ev.delayS * 1000}`;
    const at = seen.get(id);
    if (at !== undefined) {
      if (ev.confirmed && !windows[at]?.confirmed) windows[at] = ev;
      continue;
    }
    seen.set(id, windows.length);
    windows.push(ev);
  }
  let from = 0;
  for (let i = 1; i < windows.length; i++) {
    const prev = windows[i - 1] as TraceOf<'backoff'>;
    const cur = windows[i] as TraceOf<'backoff'>;
    if (cur.delayS < prev.delayS || cur.key !== prev.key) from = i;
  }
  const rungs = windows.slice(from).map(
    (ev, i): BackoffRung => ({
      n: i + 1,
      delayS: ev.delayS,
      label: goDuration(ev.delayS),
      start: ev.time,
      until: ev.until,
      seq: ev.seq,
      ...(ev.exitCode !== undefined ? { exitCode: ev.exitCode } : {}),
      ...(ev.restartCount !== undefined ? { restartCount: ev.restartCount } : {}),
      ...(ev.confirmed ? { basis: 'confirmed' as const } : ev.inferred ? { basis: 'inferred' as const } : {}),
    }),
  );
  return { rungs, resets: from };
}

function isBackoffReason(r: string | undefined): boolean {
  return (BACKOFF_REASONS as readonly string[]).includes(r ?? '');
}

function inspectOne(
  cs: ContainerStatus,
  events: readonly TraceEvent[],
  now: number,
  cfg: BackoffConfig,
): BackoffInspection | null {
  const waiting = cs.state.waiting;
  const kind: 'container' | 'image' =
    waiting?.reason === 'ImagePullBackOff' || waiting?.reason === 'ErrImagePull' ? 'image' : 'container';
  const { rungs, resets } = backoffLadder(events, cs.name, kind);
  const current = rungs[rungs.length - 1] ?? null;
  const constants = backoffConstants(kind, cfg);
  // Between two tries a crash-looping container is briefly Terminated or Running: it stays inspected
  // while its latest window is recent (as long as the entry lives).
  const recent = current !== null && now - current.until < constants.resetS * 1000 && !cs.ready;
  if (!isBackoffReason(waiting?.reason) && !recent) return null;
  const term = cs.state.terminated ?? cs.lastState.terminated;
  return {
    container: cs.name,
    kind,
    reason:
      waiting?.reason ?? (cs.state.running ? 'Running' : cs.state.terminated ? 'Terminated' : 'Waiting'),
    message: waiting?.message ?? '',
    lastExit: term
      ? { exitCode: term.exitCode, reason: term.reason ?? '', finishedAt: term.finishedAt ?? null }
      : null,
    restartCount: cs.restartCount,
    image: cs.image,
    ladder: rungs,
    resets,
    current,
    remainingMs: current ? Math.max(0, current.until - now) : 0,
    nextDelayS: current ? nextDelayS(current.delayS, constants) : constants.initialS,
    constants,
  };
}

/**
 * Every container of the pod that is in (or between tries of) a back-off, init containers first. `cfg` is
 * the node's configuration (core's defaults when it is not known yet).
 */
export function inspectBackoffs(
  status: PodStatus | undefined,
  events: readonly TraceEvent[],
  now: number,
  cfg: BackoffConfig = defaultKubeletConfiguration,
): BackoffInspection[] {
  const all = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
  return all.flatMap((cs) => inspectOne(cs, events, now, cfg) ?? []);
}

/** A countdown as m:ss (or "now" at zero). */
export function formatCountdown(ms: number): string {
  if (ms <= 0) return 'now';
  const total = Math.ceil(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/**
 * When the pod worker will sync the pod next by itself: the latest `sync.result`'s time plus the requeue
 * it set (the back-off period while a start is refused, the resync interval otherwise; both jittered).
 * A PLEG event or config op can wake it sooner. Null when the latest result set no requeue.
 */
export function nextSyncDue(events: readonly TraceEvent[]): number | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i] as TraceEvent;
    if (ev.type === 'sync.result')
      return ev.requeueAfterMs === undefined ? null : ev.time + ev.requeueAfterMs;
  }
  return null;
}

/** After a window: "waiting for the next sync, due in ≤ 7 s" (or "due now" once it is overdue). */
export function nextSyncWords(due: number | null, now: number): string {
  if (due === null) return 'waiting for the next sync';
  const s = Math.ceil((due - now) / 1000);
  return s <= 0 ? 'waiting for the next sync, due now' : `waiting for the next sync, due in ≤ ${s} s`;
}
