/**
 * Two finishing touches on a pod's TimelineLayout, kept apart from the layout itself:
 *   foldLanes   past FOLD_AFTER instances of one container, its lanes fold into one lane with a mark per
 *               run (a crash-looping container otherwise grows a lane per restart);
 *   withFaults  the simulated node's faults (`sim.fault`, node-wide) within the pod's time, labelled; an
 *               outage is a span from its start to its end or the clear that ended it early.
 * Pure; PodHistory calls both once per change of the events.
 */
import type { TraceEvent, TraceOf } from '@syncscope/core/trace';
import type { ContainerLane, FaultMark, LaneRun, LaneSegment, TimelineLayout } from './timeline-layout.ts';

/** A container keeps one lane per instance up to this many instances; past it they share one lane. */
const FOLD_AFTER = 3;

function runOf(l: ContainerLane): LaneRun {
  return {
    attempt: l.attempt,
    start: l.createdAt ?? l.startedAt ?? l.finishedAt ?? 0,
    end: l.finishedAt,
    exitCode: l.exitCode,
    reason: l.reason,
    error: l.error,
  };
}

/** The lanes with each container of more than FOLD_AFTER instances folded into one lane (in place of its first). */
function foldLanes(lanes: readonly ContainerLane[], foldAfter = FOLD_AFTER): ContainerLane[] {
  const byName = new Map<string, ContainerLane[]>();
  for (const l of lanes) byName.set(l.name, [...(byName.get(l.name) ?? []), l]);
  const out: ContainerLane[] = [];
  for (const l of lanes) {
    const same = byName.get(l.name) as ContainerLane[];
    if (same.length <= foldAfter) {
      out.push(l);
      continue;
    }
    if (same[0] !== l) continue;
    const last = same[same.length - 1] as ContainerLane;
    const segments: LaneSegment[] = same.flatMap((x) => x.segments);
    out.push({
      ...last,
      key: `${l.name}#runs`,
      attempt: null,
      segments,
      runs: same.map(runOf),
    });
  }
  return out;
}

const FAULT_WORDS: Record<string, string> = {
  containerExit: 'container exit',
  containerUnknown: 'container unknown',
  sandboxDie: 'sandbox died',
  outage: 'runtime outage',
  failNext: 'calls fail',
  imageMissing: 'image missing',
  imageRestore: 'image back',
  slowPull: 'slow pull',
  latency: 'latency',
  clear: 'faults cleared',
};

/** The fault marks of `faults` (sim.fault events, any order) that fall within [from, to]. */
export function faultMarks(faults: readonly TraceEvent[], from: number, to: number): FaultMark[] {
  const list = faults
    .filter((e): e is TraceOf<'sim.fault'> => e.type === 'sim.fault')
    .sort((a, b) => a.seq - b.seq);
  const out: FaultMark[] = [];
  for (const [i, ev] of list.entries()) {
    let end: number | undefined;
    if (ev.fault === 'outage' && ev.outageMs !== undefined) {
      end = ev.time + ev.outageMs;
      const cleared = list
        .slice(i + 1)
        .find(
          (c) =>
            c.fault === 'clear' && (c.cleared === undefined || c.cleared === 'all' || c.cleared === 'outage'),
        );
      if (cleared && cleared.time < end) end = cleared.time;
    }
    if ((end ?? ev.time) < from || ev.time > to) continue;
    const label =
      ev.fault === 'clear' && ev.cleared && ev.cleared !== 'all'
        ? `${ev.cleared} cleared`
        : (FAULT_WORDS[ev.fault] ?? ev.fault);
    out.push({ seq: ev.seq, time: ev.time, ...(end !== undefined ? { end } : {}), label, detail: ev.detail });
  }
  return out;
}

/** The layout with its lanes folded (the same object when nothing folds). */
export function withFoldedLanes(layout: TimelineLayout, foldAfter = FOLD_AFTER): TimelineLayout {
  const lanes = foldLanes(layout.lanes, foldAfter);
  return lanes.length === layout.lanes.length ? layout : { ...layout, lanes };
}

/** The layout with the faults within its time range. */
export function withFaults(layout: TimelineLayout, faults: readonly TraceEvent[]): TimelineLayout {
  const marks = faultMarks(faults, layout.start, layout.end);
  return marks.length === 0 && layout.faults.length === 0 ? layout : { ...layout, faults: marks };
}
