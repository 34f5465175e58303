/**
 * The pod worker's states and the grace deadline on a pod's timeline, from core's pod-state reducer. The
 * engine's trace states every worker transition (worker.state); a kubelet log writes them only at -v=4, so for
 * a log the bands are the reducer's: stated where a line says so, else inferred from the termination's lines
 * (the kill → TerminatingPod, every container dead → TerminatedPod, REMOVE → Finished), each with its rule.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { PodStateReducer } from './pod-state-core.ts';
import type { TimelineLayout, WorkerBand } from './timeline-layout.ts';

/** The layout with a log's worker bands and any pod's grace deadline, as the reducer folds `events`. */
export function withReducedWorker(layout: TimelineLayout, events: readonly TraceEvent[]): TimelineLayout {
  const first = events.find((e) => 'podUID' in e && e.podUID);
  const uid = first && 'podUID' in first ? first.podUID : undefined;
  if (!uid) return layout;
  const fromLog = first?.origin !== undefined;
  const r = new PodStateReducer();
  const bands: WorkerBand[] = [];
  for (const ev of events) {
    r.add(ev);
    if (!fromLog || !('podUID' in ev) || ev.podUID !== uid) continue;
    const w = r.snapshot(uid)?.worker;
    if (!w || w.basis === 'unknown') continue;
    const last = bands[bands.length - 1];
    if (last && last.state === w.value) continue;
    const start = w.since ?? ev.time;
    if (last) {
      last.end = start;
      last.open = false;
    }
    bands.push({
      state: w.value,
      start,
      end: layout.end,
      open: true,
      ...(w.basis === 'inferred' ? { rule: w.rule } : {}),
    });
  }
  const g = r.snapshot(uid)?.grace;
  const grace = g && {
    gracePeriodS: g.gracePeriodS,
    start: g.start,
    deadline: g.deadline,
    seq: g.from.seq,
    ...(g.from.line !== undefined ? { line: g.from.line } : {}),
  };
  if (!grace && bands.length === 0) return layout;
  return {
    ...layout,
    ...(bands.length > 0 ? { workerBands: bands } : {}),
    ...(grace ? { grace, end: Math.max(layout.end, grace.deadline) } : {}),
  };
}
