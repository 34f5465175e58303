/**
 * The layout of one pod's timeline, as plain data with times (ms on the engine's clock; ./timeline-model.ts):
 * the pod worker's state band (here), the marks one event each draws (./timeline-marks.ts), one lane per
 * container instance (./timeline-lanes.ts), and the server's restarts. The Timeline component only maps
 * these times to pixels.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { InstanceTable } from './timeline-lanes.ts';
import { TimelineMarks } from './timeline-marks.ts';
import type { TimelineLayout, WorkerBand } from './timeline-model.ts';

export type {
  ContainerLane,
  FaultMark,
  LaneRun,
  LaneSegment,
  TimelineLayout,
  WorkerBand,
} from './timeline-model.ts';

/**
 * The layout with its right edge moved to `now` (when later than its end): open worker bands and open
 * lane segments follow; every other array is the same object, so the point marks need no new layout.
 * The same layout object when `now` is not past its end. Lets a view lay out once per change of the
 * events and move only the live edge on each clock tick.
 */
export function extendToNow(layout: TimelineLayout, now: number): TimelineLayout {
  if (now <= layout.end || layout.finished) return layout;
  const stretch = <T extends { end: number; open?: boolean }>(x: T): T =>
    x.open ? { ...x, end: Math.max(x.end, now) } : x;
  return {
    ...layout,
    end: now,
    workerBands: layout.workerBands.map(stretch),
    lanes: layout.lanes.map((l) =>
      l.segments.some((g) => g.open) ? { ...l, segments: l.segments.map(stretch) } : l,
    ),
  };
}

/**
 * Lays out one pod's events (any order; sorted here by seq). `now` is the engine's current time: open
 * bands and running containers extend to max(now, last event).
 */
export function layoutPodTimeline(events: readonly TraceEvent[], now: number): TimelineLayout {
  // server.start markers are node-wide: keep those inside the pod's own history, and lay out the rest
  const sorted = events.filter((e) => e.type !== 'server.start').sort((a, b) => a.seq - b.seq);
  const from = sorted[0]?.time ?? Number.POSITIVE_INFINITY;
  const restarts = events
    .filter((e) => e.type === 'server.start' && e.time >= from)
    .map((e) => ({ seq: e.seq, time: e.time }))
    .sort((a, b) => a.seq - b.seq);
  const table = new InstanceTable();
  const marks = new TimelineMarks();
  const workerBands: WorkerBand[] = [];
  let open: WorkerBand | null = null;
  let finished = false;

  for (const ev of sorted) {
    if (ev.type === 'worker.state') {
      if (open) {
        open.end = ev.time;
        open.open = false;
      }
      open =
        ev.to === 'Forgotten'
          ? null
          : { state: ev.to, start: ev.time, end: ev.time, open: true, seq: ev.seq };
      if (open) workerBands.push(open);
      finished = ev.to === 'Finished' || ev.to === 'Forgotten';
    }
    table.apply(ev);
    marks.add(ev);
  }

  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const end = Math.max(now, last?.time ?? now);
  const start = Math.min(first?.time ?? end - 60_000, ...marks.syncs.map((s) => s.start));
  for (const b of workerBands) if (b.open) b.end = end;

  return {
    start,
    end,
    finished,
    workerBands,
    lanes: table.lanes(end),
    pleg: marks.pleg,
    syncs: marks.syncs,
    backoffs: marks.backoffs,
    probes: marks.probes,
    events: marks.events,
    updates: marks.updates,
    faults: [],
    restarts,
  };
}
