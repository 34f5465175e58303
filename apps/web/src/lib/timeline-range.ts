/**
 * The totals of a time range of a pod's timeline, as a profiler shows for a dragged selection: SyncPod runs
 * that ended in it, steps that report a failure, container restarts, and the time the pod worker spent in
 * each state. Pure; events sorted by time (a pod's steps), bands as the layout draws them.
 */
import type { TraceEvent, WorkerState } from '@syncscope/core/trace';
import { isErrorStep } from './step-filter.ts';
import { indexFromTime } from './step-search.ts';
import type { WorkerBand } from './timeline-layout.ts';

export interface RangeTotals {
  start: number;
  end: number;
  /** steps in the range */
  steps: number;
  /** SyncPod runs whose result falls in the range */
  syncs: number;
  /** steps that report a failure (what "next error" visits) */
  errors: number;
  /** container starts in the range that follow an earlier start of the same container */
  restarts: number;
  /** ms the worker spent in each state within the range, in the order the states were first seen */
  worker: { state: WorkerState; ms: number }[];
}

/** A successful start of a container: a StartContainer call, or for a log without calls, PLEG's word. */
function startedContainer(ev: TraceEvent, byCalls: boolean): string | null {
  if (byCalls) {
    if (ev.type !== 'runtime.call' || ev.method !== 'StartContainer' || ev.error) return null;
    if (ev.code !== undefined && ev.code !== 0) return null;
    return ev.container ?? null;
  }
  if (ev.type !== 'pleg.event' || ev.event !== 'ContainerStarted') return null;
  return ev.containerName ?? ev.containerID;
}

export function rangeTotals(
  events: readonly TraceEvent[],
  bands: readonly WorkerBand[],
  start: number,
  end: number,
): RangeTotals {
  const lo = Math.min(start, end);
  const hi = Math.max(start, end);
  const t: RangeTotals = { start: lo, end: hi, steps: 0, syncs: 0, errors: 0, restarts: 0, worker: [] };
  const byCalls = events.some((e) => e.type === 'runtime.call' && e.method === 'StartContainer');
  // containers started before the range: their next start in it is a restart
  const started = new Set<string>();
  const from = Math.max(0, indexFromTime(events, lo));
  for (let i = 0; i < from; i++) {
    const c = startedContainer(events[i] as TraceEvent, byCalls);
    if (c !== null) started.add(c);
  }
  for (let i = from; i < events.length; i++) {
    const ev = events[i] as TraceEvent;
    if (ev.time > hi) break;
    if (ev.time < lo) continue;
    t.steps++;
    if (ev.type === 'sync.result') t.syncs++;
    if (isErrorStep(ev)) t.errors++;
    const c = startedContainer(ev, byCalls);
    if (c !== null) {
      if (started.has(c)) t.restarts++;
      started.add(c);
    }
  }
  const ms = new Map<WorkerState, number>();
  for (const b of bands) {
    const overlap = Math.min(b.end, hi) - Math.max(b.start, lo);
    if (overlap > 0) ms.set(b.state, (ms.get(b.state) ?? 0) + overlap);
  }
  t.worker = [...ms].map(([state, n]) => ({ state, ms: n }));
  return t;
}
