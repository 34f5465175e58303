/**
 * What lies under the pointer on a timeline row: the mark (with its seq, so a click selects that step)
 * and the lines of its tooltip. Pure: rows and times in, words out.
 */
import { type ClockFormat, goDuration, localClock } from '../lib/explain.ts';
import { INFERRED_STARTED } from '../lib/provenance.ts';
import type { ContainerLane, TimelineLayout } from '../lib/timeline-layout.ts';
import { intervalAt, nearestMark } from './viewport.ts';

/** The fixed rows above the container lanes, top to bottom. */
export const FIXED_ROWS = ['worker', 'updates', 'sync', 'PLEG', 'back-off', 'probes', 'events'] as const;
/** The index of each fixed row; container lanes follow at LANES0 + i. */
export const ROW = {
  worker: 0,
  updates: 1,
  sync: 2,
  pleg: 3,
  backoff: 4,
  probes: 5,
  events: 6,
} as const satisfies Record<string, number>;
export const LANES0 = FIXED_ROWS.length;

export interface Hit {
  /** The step the mark stands for; null for a bar no single event draws (a worker band, a container run). */
  seq: number | null;
  /** Where the bar begins: a click on a bar with no seq selects the step at this time. */
  time?: number;
  lines: string[];
}

export function laneLabel(lane: ContainerLane): string {
  if (lane.runs) return `${lane.init ? 'init:' : ''}${lane.name} ×${lane.runs.length} runs`;
  const attempt = lane.attempt === null ? '' : ` #${lane.attempt}`;
  return `${lane.init ? 'init:' : ''}${lane.name}${attempt}`;
}

function laneSummary(lane: ContainerLane, fmt: ClockFormat = localClock): string[] {
  const out = [laneLabel(lane)];
  if (lane.containerID) out.push(`id ${lane.containerID.slice(0, 12)}`);
  if (lane.createdAt !== null) out.push(`created ${fmt(lane.createdAt)}`);
  if (lane.startedAt !== null) out.push(`started ${fmt(lane.startedAt)}`);
  if (lane.finishedAt !== null) {
    out.push(
      `finished ${fmt(lane.finishedAt)}${lane.exitCode !== null ? `, exit ${lane.exitCode}` : ''}${lane.reason ? ` (${lane.reason})` : ''}`,
    );
  }
  if (lane.error) out.push(lane.error);
  return out;
}

/**
 * The hit on `row` (index into FIXED_ROWS, then lanes) at `time`; `tolMs` is how far (in ms) a point mark
 * may be from the pointer.
 */
export function hitTest(
  layout: TimelineLayout,
  row: number,
  time: number,
  tolMs: number,
  fmt: ClockFormat = localClock,
): Hit | null {
  const name = FIXED_ROWS[row];
  switch (name) {
    case 'worker': {
      const b = intervalAt(layout.workerBands, time);
      return b
        ? {
            seq: b.seq ?? null,
            time: b.start,
            lines: [b.state, `since ${fmt(b.start)}${b.open ? '' : ` until ${fmt(b.end)}`}`],
          }
        : null;
    }
    case 'updates': {
      const u = nearestMark(layout.updates, time, tolMs);
      return u ? { seq: u.seq, lines: [u.label, fmt(u.time)] } : null;
    }
    case 'sync': {
      const s = intervalAt(layout.syncs, time, tolMs);
      if (!s) return null;
      return {
        seq: s.seq,
        lines: [
          s.durationStated
            ? `${s.workType} ${fmt(s.start)} (${Math.round(s.end - s.start)} ms)`
            : `${s.workType} ${s.failed ? 'failed' : 'ended'} ${fmt(s.end)} (no duration in the log)`,
          ...s.actions.map(
            (a) => `${a.error ? '✗' : '✓'} ${a.action} ${a.target}${a.error ? `: ${a.error}` : ''}`,
          ),
          ...(s.error ? [s.error] : []),
        ],
      };
    }
    case 'PLEG': {
      const p = nearestMark(layout.pleg, time, tolMs);
      return p
        ? {
            seq: p.seq,
            lines: [
              `PLEG ${p.event}`,
              `${p.containerName ?? ''} ${p.containerID.slice(0, 12)}`,
              fmt(p.time),
              ...(p.inferred ? [INFERRED_STARTED] : []),
            ],
          }
        : null;
    }
    case 'back-off': {
      const b = intervalAt(layout.backoffs, time);
      return b
        ? {
            seq: b.seq,
            lines: [
              `${b.kind === 'image' ? 'image pull' : 'container'} back-off ${goDuration(b.delayS)}: ${b.container}`,
              `${fmt(b.start)} → ${fmt(b.end)}`,
            ],
          }
        : null;
    }
    case 'probes': {
      const p = nearestMark(layout.probes, time, tolMs);
      return p
        ? {
            seq: p.seq,
            lines: [
              `${p.probe} ${p.container || '(container not in the log)'}: ${p.result}`,
              ...(p.output ? [p.output] : []),
              fmt(p.time),
            ],
          }
        : null;
    }
    case 'events': {
      const e = nearestMark(layout.events, time, tolMs);
      return e ? { seq: e.seq, lines: [`${e.eventType} ${e.reason}`, e.message, fmt(e.time)] } : null;
    }
    default: {
      const lane = layout.lanes[row - FIXED_ROWS.length];
      if (!lane) return null;
      const run =
        lane.runs &&
        intervalAt(
          lane.runs.map((r) => ({ ...r, end: r.end ?? layout.end })),
          time,
          tolMs,
        );
      if (run) {
        const exit =
          run.error ??
          (run.exitCode !== null ? `exit ${run.exitCode}${run.reason ? ` (${run.reason})` : ''}` : 'running');
        return {
          seq: null,
          time: run.start,
          lines: [
            `${lane.name}${run.attempt !== null ? ` #${run.attempt}` : ''}`,
            `${fmt(run.start)} · ${exit}`,
          ],
        };
      }
      const seg = intervalAt(lane.segments, time);
      return seg ? { seq: null, time: seg.start, lines: [`${seg.kind}`, ...laneSummary(lane, fmt)] } : null;
    }
  }
}
