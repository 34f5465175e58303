/**
 * The housekeeping cadence: the last N runs of HandlePodCleanups (the node aggregates' housekeeping beats,
 * from the `housekeeping` trace event), the
 * interval since the run before (the 2 s housekeeping ticker) and how long each took (the kubelet warns
 * past housekeepingWarningDuration, 1 s), laid out as a small bar chart with a dashed line at each limit.
 *
 * Pure; beats in ascending seq order. A run's time is when it ended, so its start is time - durationMs,
 * and the interval is measured start to start, as the ticker paces them.
 */
import { bands, linearScale, niceTicks } from './linear-scale.ts';
import type { HousekeepingBeat } from './pod-state-core.ts';

const DEFAULT_CADENCE_RUNS = 30;

export interface CadenceRun {
  seq: number;
  start: number;
  end: number;
  durationMs: number;
  /** Start to start from the previous run; null for the first one seen. */
  intervalMs: number | null;
  forgotten: number;
  orphansKilled: number;
  restarted: number;
}

/** The last `n` housekeeping runs, oldest first. */
export function housekeepingRuns(beats: readonly HousekeepingBeat[], n = DEFAULT_CADENCE_RUNS): CadenceRun[] {
  // n + 1 beats: one more gives the first run its interval
  const found = beats.slice(Math.max(0, beats.length - n - 1));
  const runs: CadenceRun[] = [];
  let prevStart: number | null = null;
  for (const ev of found) {
    const start = ev.time - ev.durationMs;
    runs.push({
      seq: ev.seq,
      start,
      end: ev.time,
      durationMs: ev.durationMs,
      intervalMs: prevStart === null ? null : start - prevStart,
      forgotten: ev.forgotten,
      orphansKilled: ev.orphansKilled,
      restarted: ev.restarted,
    });
    prevStart = start;
  }
  return runs.length > n ? runs.slice(runs.length - n) : runs;
}

interface CadenceBar {
  seq: number;
  x: number;
  width: number;
  /** Interval bar (null when unknown) and duration bar, as y (top) and height. */
  interval: { y: number; height: number } | null;
  duration: { y: number; height: number };
  /** Duration past the warning threshold. */
  slow: boolean;
  /** Interval past 1.5 × the period: the loop was busy elsewhere and the ticker fired late. */
  late: boolean;
  run: CadenceRun;
}

export interface CadenceLayout {
  width: number;
  height: number;
  bars: CadenceBar[];
  /** y of the dashed lines. */
  warningY: number;
  periodY: number;
  maxMs: number;
  yTicks: { y: number; label: string }[];
}

export interface CadenceOptions {
  width: number;
  height: number;
  periodMs: number;
  warningMs: number;
  /** Bars per chart; the band is sized for this many so bars keep their width as runs arrive. */
  slots?: number;
}

export function layoutCadence(all: readonly CadenceRun[], o: CadenceOptions): CadenceLayout {
  const slots = o.slots ?? DEFAULT_CADENCE_RUNS;
  const runs = all.length > slots ? all.slice(all.length - slots) : all;
  const largest = Math.max(0, ...runs.map((r) => Math.max(r.intervalMs ?? 0, r.durationMs)));
  const maxMs = Math.max(o.periodMs * 1.25, largest * 1.1);
  const y = linearScale([0, maxMs], [o.height, 0]);
  const band = bands(slots, [0, o.width], 0.25);
  const offset = slots - runs.length;
  const bars = runs.map((run, i) => {
    const x = band.at(i + offset);
    const width = band.width;
    const bar = (ms: number) => ({ y: y(ms), height: Math.max(1, o.height - y(ms)) });
    return {
      seq: run.seq,
      x,
      width,
      interval: run.intervalMs === null ? null : bar(run.intervalMs),
      duration: bar(run.durationMs),
      slow: run.durationMs > o.warningMs,
      late: run.intervalMs !== null && run.intervalMs > o.periodMs * 1.5,
      run,
    };
  });
  const yTicks = niceTicks(0, maxMs, 3).map((t) => ({ y: y(t), label: `${t / 1000}s` }));
  return {
    width: o.width,
    height: o.height,
    bars,
    warningY: y(o.warningMs),
    periodY: y(o.periodMs),
    maxMs,
    yTicks,
  };
}
