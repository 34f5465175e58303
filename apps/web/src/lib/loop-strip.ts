/**
 * The sync loop as a strip: the layout of the last `windowMs` of engine time, one lane per source
 * (config, pleg, sync, probe, housekeeping), each `loop.iteration` a mark from its start (time - durationMs)
 * to its end, each `loop.skipped` a red band over its backoff, each `sim.fault` a marker across the lanes.
 *
 * Pure: the view calls layoutLoopStrip(events, now, width) on every tick of the engine clock and draws
 * what it returns. `events` must be in ascending seq order, which on one journal is ascending time too
 * (the engine stamps events from one clock), so the window's start is found by bisection and a long trace
 * costs only the events inside the window.
 */
import type { LoopSource, TraceEvent } from '@syncscope/core/trace';
import { bisector, type ScaleLinear, scaleLinear } from 'd3';

export const LOOP_SOURCES: readonly LoopSource[] = ['config', 'pleg', 'sync', 'probe', 'housekeeping'];

/** The sources' colour tokens (tokens.css): the lanes (by class) and the legend's swatches use the same. */
export const LOOP_SOURCE_COLORS: Record<LoopSource, string> = {
  config: 'var(--src-config)',
  pleg: 'var(--src-pleg)',
  sync: 'var(--src-sync)',
  probe: 'var(--src-probe)',
  housekeeping: 'var(--src-housekeeping)',
};

const DEFAULT_LOOP_WINDOW_MS = 60_000;
export const LOOP_LANE_HEIGHT = 16;
const LOOP_LANE_GAP = 4;
export const LOOP_AXIS_HEIGHT = 18;
/** The narrowest mark drawn, in px, so a 0 ms iteration stays visible. */
export const MIN_MARK_PX = 2;

interface LoopMark {
  seq: number;
  source: LoopSource;
  /** Engine time the iteration ended (the event's time). */
  time: number;
  durationMs: number;
  pods: number;
  x: number;
  y: number;
  width: number;
}

interface SkippedMark {
  seq: number;
  time: number;
  backoffMs: number;
  errors: string[];
  x: number;
  width: number;
}

interface FaultMark {
  seq: number;
  time: number;
  fault: string;
  detail: string;
  x: number;
}

interface RelistMark {
  seq: number;
  time: number;
  events: number;
  durationMs: number;
  x: number;
}

export interface LoopStripLayout {
  width: number;
  height: number;
  /** Left edge (engine ms) and right edge (= now). */
  start: number;
  end: number;
  x: ScaleLinear<number, number>;
  /** Lane top per source. */
  laneY: Record<LoopSource, number>;
  iterations: LoopMark[];
  skipped: SkippedMark[];
  faults: FaultMark[];
  relists: RelistMark[];
  /**
   * Engine time of the oldest event held, when it is inside the window: the strip has data only from
   * there to now. null when the data covers the whole window.
   */
  dataFrom: number | null;
  /** Iterations per source inside the window. */
  counts: Record<LoopSource, number>;
  /** Skipped iterations inside the window. */
  skippedCount: number;
  ticks: { x: number; label: string }[];
}

const byTime = bisector((ev: TraceEvent) => ev.time).left;

/** Seconds before now as the axis prints them: "-60s", "-30s", "now". */
export function relativeLabel(ms: number): string {
  if (Math.abs(ms) < 1) return 'now';
  return `${Math.round(ms / 1000)}s`;
}

export function layoutLoopStrip(
  events: readonly TraceEvent[],
  now: number,
  width: number,
  windowMs = DEFAULT_LOOP_WINDOW_MS,
): LoopStripLayout {
  const start = now - windowMs;
  const x = scaleLinear().domain([start, now]).range([0, width]);
  const laneY = {} as Record<LoopSource, number>;
  LOOP_SOURCES.forEach((s, i) => {
    laneY[s] = i * (LOOP_LANE_HEIGHT + LOOP_LANE_GAP);
  });
  const lanesHeight = LOOP_SOURCES.length * (LOOP_LANE_HEIGHT + LOOP_LANE_GAP);
  const counts = Object.fromEntries(LOOP_SOURCES.map((s) => [s, 0])) as Record<LoopSource, number>;
  const iterations: LoopMark[] = [];
  const skipped: SkippedMark[] = [];
  const faults: FaultMark[] = [];
  const relists: RelistMark[] = [];

  // A skipped iteration's band reaches forward by its backoff (at most syncLoopBackoffMaxMs, 5 s) and an
  // iteration backward by its duration: look a little before the window so both are drawn when they overlap it.
  const from = byTime(events as TraceEvent[], start - 10_000);
  for (let i = from; i < events.length; i++) {
    const ev = events[i] as TraceEvent;
    if (ev.time > now) break;
    if (ev.type === 'loop.iteration') {
      const t0 = ev.time - ev.durationMs;
      if (ev.time < start) continue;
      counts[ev.source]++;
      const x0 = Math.max(0, x(t0));
      iterations.push({
        seq: ev.seq,
        source: ev.source,
        time: ev.time,
        durationMs: ev.durationMs,
        pods: ev.pods,
        x: x0,
        y: laneY[ev.source],
        width: Math.max(MIN_MARK_PX, x(ev.time) - x0),
      });
    } else if (ev.type === 'loop.skipped') {
      const t1 = Math.min(now, ev.time + ev.backoffMs);
      if (t1 < start) continue;
      const x0 = Math.max(0, x(ev.time));
      skipped.push({
        seq: ev.seq,
        time: ev.time,
        backoffMs: ev.backoffMs,
        errors: ev.errors,
        x: x0,
        width: Math.max(MIN_MARK_PX, x(t1) - x0),
      });
    } else if (ev.type === 'sim.fault') {
      if (ev.time < start) continue;
      faults.push({ seq: ev.seq, time: ev.time, fault: ev.fault, detail: ev.detail, x: x(ev.time) });
    } else if (ev.type === 'pleg.relist') {
      if (ev.time < start) continue;
      relists.push({
        seq: ev.seq,
        time: ev.time,
        events: ev.events,
        durationMs: ev.durationMs,
        x: x(ev.time),
      });
    }
  }
  // Ticks at round seconds before now, so the labels stay put while the strip scrolls under them.
  const ticks = scaleLinear()
    .domain([-windowMs, 0])
    .ticks(6)
    .map((t) => ({ x: x(now + t), label: relativeLabel(t) }));
  return {
    width,
    height: lanesHeight + LOOP_AXIS_HEIGHT,
    start,
    end: now,
    x,
    laneY,
    iterations,
    skipped,
    faults,
    relists,
    dataFrom:
      events.length === 0
        ? now
        : (events[0] as TraceEvent).time > start
          ? (events[0] as TraceEvent).time
          : null,
    counts,
    skippedCount: skipped.filter((s) => s.time >= start).length,
    ticks,
  };
}
