/**
 * The sync loop as a strip: the layout of the last `windowMs` of engine time from the node's aggregates
 * (core's NodeAggregateFold: the server's, or a replay's), one lane per source (config, pleg, sync, probe,
 * housekeeping), each second a cell in the lanes of the sources that woke the loop in it (darker the more
 * iterations it held), each PLEG relist a tick, each skipped iteration a red band over its backoff, each
 * fault a marker across the lanes.
 *
 * Pure: the view calls layoutLoopStrip(aggregates, now, width) on every tick of the engine clock and draws
 * what it returns. Its cost is the window's seconds and beats (at most a few hundred), never the node's
 * event rate.
 */
import type { LoopSource } from '@syncscope/core/trace';
import { type LinearScale, linearScale, niceTicks } from './linear-scale.ts';
import type { NodeAggregatesState } from './node-aggregates-cache.ts';
import { AGGREGATE_BUCKET_MS, LOOP_SOURCE_ORDER } from './pod-state-core.ts';

export const LOOP_SOURCES: readonly LoopSource[] = LOOP_SOURCE_ORDER;

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

/** One second of one source: how many iterations it woke, the longest one. */
interface LoopCell {
  /** engine ms at the second's start */
  t: number;
  source: LoopSource;
  count: number;
  maxMs: number;
  /** 0..1: the cell's count against the busiest cell in the window */
  weight: number;
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

/** What the strip reads of the aggregates. */
export type LoopAggregates = Pick<NodeAggregatesState, 'from' | 'loop' | 'relists' | 'skipped' | 'faults'>;

export interface LoopStripLayout {
  width: number;
  height: number;
  /** Left edge (engine ms) and right edge (= now). */
  start: number;
  end: number;
  x: LinearScale;
  /** Lane top per source. */
  laneY: Record<LoopSource, number>;
  cells: LoopCell[];
  skipped: SkippedMark[];
  faults: FaultMark[];
  relists: RelistMark[];
  /**
   * Engine time of the oldest event folded, when it is inside the window: the strip has data only from
   * there to now. null when the data covers the whole window.
   */
  dataFrom: number | null;
  /** Iterations per source inside the window (of the seconds it overlaps). */
  counts: Record<LoopSource, number>;
  /** Skipped iterations inside the window. */
  skippedCount: number;
  ticks: { x: number; label: string }[];
}

/** Seconds before now as the axis prints them: "-60s", "-30s", "now". */
export function relativeLabel(ms: number): string {
  if (Math.abs(ms) < 1) return 'now';
  return `${Math.round(ms / 1000)}s`;
}

export function layoutLoopStrip(
  agg: LoopAggregates,
  now: number,
  width: number,
  windowMs = DEFAULT_LOOP_WINDOW_MS,
): LoopStripLayout {
  const start = now - windowMs;
  const x = linearScale([start, now], [0, width]);
  const laneY = {} as Record<LoopSource, number>;
  LOOP_SOURCES.forEach((s, i) => {
    laneY[s] = i * (LOOP_LANE_HEIGHT + LOOP_LANE_GAP);
  });
  const lanesHeight = LOOP_SOURCES.length * (LOOP_LANE_HEIGHT + LOOP_LANE_GAP);
  const counts = Object.fromEntries(LOOP_SOURCES.map((s) => [s, 0])) as Record<LoopSource, number>;
  const cells: LoopCell[] = [];
  let busiest = 1;
  for (const sec of agg.loop) {
    // a second that ends after the window's start and starts before now
    if (sec.t + AGGREGATE_BUCKET_MS <= start || sec.t > now) continue;
    const x0 = Math.max(0, x(sec.t));
    const x1 = Math.min(width, x(sec.t + AGGREGATE_BUCKET_MS));
    LOOP_SOURCES.forEach((source, i) => {
      const count = sec.n[i] ?? 0;
      if (count === 0) return;
      counts[source] += count;
      busiest = Math.max(busiest, count);
      cells.push({
        t: sec.t,
        source,
        count,
        maxMs: sec.maxMs[i] ?? 0,
        weight: 0,
        x: x0,
        y: laneY[source],
        width: Math.max(MIN_MARK_PX, x1 - x0 - 1),
      });
    });
  }
  for (const c of cells) c.weight = c.count / busiest;
  const skipped: SkippedMark[] = [];
  for (const m of agg.skipped) {
    const t1 = Math.min(now, m.time + m.backoffMs);
    if (t1 < start || m.time > now) continue;
    const x0 = Math.max(0, x(m.time));
    skipped.push({ ...m, x: x0, width: Math.max(MIN_MARK_PX, x(t1) - x0) });
  }
  const faults: FaultMark[] = [];
  for (const f of agg.faults) if (f.time >= start && f.time <= now) faults.push({ ...f, x: x(f.time) });
  const relists: RelistMark[] = [];
  for (const r of agg.relists) if (r.time >= start && r.time <= now) relists.push({ ...r, x: x(r.time) });
  // Ticks at round seconds before now, so the labels stay put while the strip scrolls under them.
  const ticks = niceTicks(-windowMs, 0, 6).map((t) => ({ x: x(now + t), label: relativeLabel(t) }));
  return {
    width,
    height: lanesHeight + LOOP_AXIS_HEIGHT,
    start,
    end: now,
    x,
    laneY,
    cells,
    skipped,
    faults,
    relists,
    dataFrom: agg.from === null ? now : agg.from > start ? agg.from : null,
    counts,
    skippedCount: skipped.filter((s) => s.time >= start).length,
    ticks,
  };
}
