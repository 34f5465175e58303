import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { layoutCadence, housekeepingRuns as runsOf } from './cadence.ts';
import { T0, traceBuilder } from './fixtures.ts';
import { aggregatesOf } from './node-aggregates-cache.ts';

/** The runs as the page gets them: the trace through the node aggregates' fold. */
const housekeepingRuns = (events: TraceEvent[], n?: number) => runsOf(aggregatesOf(events).housekeeping, n);

function runs(spec: [atS: number, durationMs: number][]): TraceEvent[] {
  const ev = traceBuilder();
  const out: TraceEvent[] = [];
  for (const [s, d] of spec) {
    out.push(ev(s, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }));
    out.push(ev(s, { type: 'housekeeping', durationMs: d, forgotten: 0, orphansKilled: 0, restarted: 0 }));
  }
  return out;
}

describe('housekeepingRuns', () => {
  it('measures the interval start to start and keeps the last n runs', () => {
    const r = housekeepingRuns(
      runs([
        [2, 0],
        [4, 500],
        [6.5, 0],
        [8.5, 1200],
      ]),
      3,
    );
    expect(r.map((x) => x.intervalMs)).toEqual([1500, 3000, 800]);
    expect(r.map((x) => x.durationMs)).toEqual([500, 0, 1200]);
    expect(r[0]?.start).toBe(T0 + 3500);
  });

  it('has no interval for the first run it sees', () => {
    const r = housekeepingRuns(runs([[2, 1]]));
    expect(r).toHaveLength(1);
    expect(r[0]?.intervalMs).toBeNull();
  });
});

describe('layoutCadence', () => {
  const opts = { width: 300, height: 100, periodMs: 2000, warningMs: 1000, slots: 3 };

  it('draws the period and warning lines and flags slow and late runs', () => {
    const l = layoutCadence(
      housekeepingRuns(
        runs([
          [0, 0],
          [2, 0],
          [5.5, 1500],
          [7.2, 0],
        ]),
      ),
      opts,
    );
    // runs start at 2 s, 4 s, 7.2 s: intervals 2 s, 2 s, 3.2 s (late); the scale reaches 1.1 × 3.2 s
    expect(l.maxMs).toBeCloseTo(3520);
    expect(l.periodY).toBeCloseTo(100 - (2000 / 3520) * 100);
    expect(l.warningY).toBeCloseTo(100 - (1000 / 3520) * 100);
    expect(l.bars.map((b) => [b.slow, b.late])).toEqual([
      [false, false],
      [true, false],
      [false, true],
    ]);
    // the 1.5 s duration bar reaches above the warning line
    expect(l.bars[1]?.duration.y).toBeLessThan(l.warningY);
  });

  it('keeps the scale at 1.25 × the period while runs are on time', () => {
    const l = layoutCadence(
      housekeepingRuns(
        runs([
          [0, 0],
          [2, 0],
        ]),
      ),
      opts,
    );
    expect(l.maxMs).toBe(2500);
    expect(l.periodY).toBeCloseTo(20);
    expect(l.warningY).toBeCloseTo(60);
  });

  it('grows the scale to the longest interval and right-aligns a short history', () => {
    const l = layoutCadence(
      housekeepingRuns(
        runs([
          [0, 0],
          [5, 0],
        ]),
      ),
      opts,
    );
    expect(l.maxMs).toBeCloseTo(5500);
    expect(l.bars).toHaveLength(2);
    expect(l.bars[1]?.x).toBeGreaterThan(200);
    expect(l.bars[0]?.interval).toBeNull();
  });
});
