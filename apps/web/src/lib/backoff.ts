/**
 * The back-off inspector's model, from the pod's status and its `backoff` trace events.
 *
 * The engine records a `backoff` event each time a start is refused or a pull fails, so one back-off
 * window (one `until`) can appear many times: every sync during the window repeats it. The ladder keeps one
 * rung per window, in order: 10s, 20s, 40s, … 5m0s. A rung shorter than the one before means the entry was
 * re-initialised (the container ran 10 minutes without failing, or the entry expired): the ladder "so
 * far" starts there.
 */
import type { ContainerStatus, PodStatus } from '@syncscope/core/api';
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import { goDuration } from './explain.ts';

/** kubelet v1.32: initial and maximum container / image back-off, and the reset rule's window. */
export const BACKOFF_INITIAL_S = 10;
export const BACKOFF_MAX_S = 300;
export const BACKOFF_RESET_S = 600;

export const BACKOFF_REASONS = ['CrashLoopBackOff', 'ImagePullBackOff', 'ErrImagePull'] as const;

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
}

/** The delay after `delayS`: doubled, capped at 5m0s. */
export function nextDelayS(delayS: number): number {
  return Math.min(BACKOFF_MAX_S, Math.max(BACKOFF_INITIAL_S, delayS * 2));
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
): BackoffInspection | null {
  const waiting = cs.state.waiting;
  const kind: 'container' | 'image' =
    waiting?.reason === 'ImagePullBackOff' || waiting?.reason === 'ErrImagePull' ? 'image' : 'container';
  const { rungs, resets } = backoffLadder(events, cs.name, kind);
  const current = rungs[rungs.length - 1] ?? null;
  // Between two tries a crash-looping container is briefly Terminated or Running: it stays inspected
  // while its latest window is recent (the entry lives 10 minutes).
  const recent = current !== null && now - current.until < BACKOFF_RESET_S * 1000 && !cs.ready;
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
    nextDelayS: current ? nextDelayS(current.delayS) : BACKOFF_INITIAL_S,
  };
}

/** Every container of the pod that is in (or between tries of) a back-off, init containers first. */
export function inspectBackoffs(
  status: PodStatus | undefined,
  events: readonly TraceEvent[],
  now: number,
): BackoffInspection[] {
  const all = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
  return all.flatMap((cs) => inspectOne(cs, events, now) ?? []);
}

/** A countdown as m:ss (or "now" at zero). */
export function formatCountdown(ms: number): string {
  if (ms <= 0) return 'now';
  const total = Math.ceil(ms / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}
