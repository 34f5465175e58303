/**
 * Which steps the step-through visits: each trace event has a kind (worker, sync, PLEG, CRI call, Event,
 * probe, back-off, other), the user picks the kinds to step through, and "next error" jumps to the next
 * event that reports a failure. Also where a pod's steps begin: at its own first event, not at a
 * node-wide `server.start` or `sim.fault` recorded before the pod existed. Pure; read by PodHistory.
 */
import type { TraceEvent } from '@syncscope/core/trace';

export const STEP_KINDS = ['worker', 'sync', 'pleg', 'cri', 'events', 'probes', 'backoff', 'other'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const STEP_KIND_LABEL: Record<StepKind, string> = {
  worker: 'worker state',
  sync: 'SyncPod results',
  pleg: 'PLEG events',
  cri: 'CRI calls',
  events: 'Events',
  probes: 'probes',
  backoff: 'back-off',
  other: 'status & other',
};

export function stepKind(ev: TraceEvent): StepKind {
  switch (ev.type) {
    case 'worker.state':
    case 'worker.update':
    case 'config.update':
      return 'worker';
    case 'sync.start':
    case 'sync.result':
      return 'sync';
    case 'pleg.event':
      return 'pleg';
    case 'runtime.call':
      return 'cri';
    case 'k8s.event':
      return 'events';
    case 'probe.result':
      return 'probes';
    case 'backoff':
      return 'backoff';
    default:
      return 'other';
  }
}

/** Whether the event reports something that went wrong (the target of "next error"). */
export function isErrorStep(ev: TraceEvent): boolean {
  switch (ev.type) {
    case 'sync.result':
      return Boolean(ev.error) || ev.actions.some((a) => a.error);
    case 'runtime.call':
      return Boolean(ev.error) || (ev.code !== undefined && ev.code !== 0);
    case 'k8s.event':
      return ev.eventType === 'Warning';
    case 'probe.result':
      return ev.result === 'Failure';
    case 'backoff':
    case 'sim.fault':
      return true;
    case 'worker.update':
      return Boolean(ev.dropped);
    case 'log.raw':
      return ev.level === 'E' || ev.level === 'F';
    default:
      return false;
  }
}

/** The pod's steps: its events from its own first one on (node-wide events before it are dropped). */
export function podSteps(events: readonly TraceEvent[]): readonly TraceEvent[] {
  const first = events.findIndex((e) => 'podUID' in e && e.podUID !== undefined);
  return first <= 0 ? events : events.slice(first);
}

/**
 * The index of the nearest event at or after `from` (dir 1) or at or before it (dir -1) for which `ok`
 * holds; -1 when none.
 */
export function seekStep(
  events: readonly TraceEvent[],
  from: number,
  dir: 1 | -1,
  ok: (ev: TraceEvent) => boolean,
): number {
  for (let i = from; i >= 0 && i < events.length; i += dir) if (ok(events[i] as TraceEvent)) return i;
  return -1;
}

/** A predicate for the chosen kinds (every kind when the set is empty). */
export function kindFilter(kinds: ReadonlySet<StepKind>): (ev: TraceEvent) => boolean {
  return kinds.size === 0 || kinds.size === STEP_KINDS.length ? () => true : (ev) => kinds.has(stepKind(ev));
}
