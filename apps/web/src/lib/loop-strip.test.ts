import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { T0, traceBuilder } from './fixtures.ts';
import { layoutLoopStrip, MIN_MARK_PX, relativeLabel } from './loop-strip.ts';
import { aggregatesOf } from './node-aggregates-cache.ts';

const at = (s: number) => T0 + s * 1000;
const layout = (events: TraceEvent[], now: number, width = 600) =>
  layoutLoopStrip(aggregatesOf(events), now, width);

describe('layoutLoopStrip', () => {
  it('draws each second of the last 60 s in the lanes of the sources that woke the loop in it', () => {
    const ev = traceBuilder();
    const events = [
      ev(10, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }), // older than the window
      ev(70.2, { type: 'loop.iteration', source: 'pleg', pods: 1, durationMs: 600 }),
      ev(70.4, { type: 'loop.iteration', source: 'pleg', pods: 1, durationMs: 20 }),
      ev(75, { type: 'loop.iteration', source: 'housekeeping', pods: 0, durationMs: 3 }),
      ev(76, { type: 'loop.iteration', source: 'sync', pods: 2, durationMs: 1 }),
    ];
    const l = layout(events, at(100));
    expect(l.cells.map((c) => c.source)).toEqual(['pleg', 'housekeeping', 'sync']);
    expect(l.counts).toEqual({ config: 0, pleg: 2, sync: 1, probe: 0, housekeeping: 1 });
    const pleg = l.cells[0];
    // 600 px for 60 s: 10 px per second; the pleg second is 70 s to 71 s (30 s before now), a px of gap
    expect(pleg).toMatchObject({ count: 2, maxMs: 600, weight: 1, x: 300, y: l.laneY.pleg });
    expect(pleg?.width).toBeCloseTo(9);
    expect(l.laneY.pleg).not.toBe(l.laneY.sync);
    expect(l.cells[2]?.weight).toBe(0.5);
    // on a narrow strip a second is still visible
    expect(layout(events, at(100), 60).cells[2]?.width).toBe(MIN_MARK_PX);
  });

  it('draws a skipped iteration over its backoff and a fault as a marker', () => {
    const ev = traceBuilder();
    const events = [
      ev(90, { type: 'sim.fault', fault: 'outage', detail: 'runtime down for 5s' }),
      ev(91, { type: 'loop.skipped', errors: ['container runtime is down'], backoffMs: 3200 }),
      ev(99, { type: 'loop.skipped', errors: ['container runtime is down'], backoffMs: 5000 }),
    ];
    const l = layout(events, at(100));
    expect(l.faults).toEqual([
      { seq: 1, time: at(90), fault: 'outage', detail: 'runtime down for 5s', x: 500 },
    ]);
    expect(l.skippedCount).toBe(2);
    expect(l.skipped[0]?.x).toBeCloseTo(510);
    expect(l.skipped[0]?.width).toBeCloseTo(32);
    // the band of the last one is cut at now
    expect((l.skipped[1]?.x ?? 0) + (l.skipped[1]?.width ?? 0)).toBeCloseTo(600);
  });

  it('ignores seconds after now and labels the axis relative to now', () => {
    const ev = traceBuilder();
    const l = layout(
      [ev(101, { type: 'loop.iteration', source: 'config', pods: 1, durationMs: 0 })],
      at(100),
    );
    expect(l.cells).toEqual([]);
    expect(l.ticks.at(-1)?.label).toBe('now');
    expect(l.ticks[0]?.label).toBe('-60s');
    expect(relativeLabel(-30_000)).toBe('-30s');
  });
});

describe('relists and coverage', () => {
  it('draws every relist on the pleg lane and says where the data starts', () => {
    const ev = traceBuilder();
    const events = [
      ev(50, { type: 'pleg.relist', durationMs: 1, pods: 0, containers: 0, events: 0 }),
      ev(51, { type: 'pleg.relist', durationMs: 1, pods: 1, containers: 1, events: 2 }),
    ];
    const l = layout(events, T0 + 60_000);
    expect(l.relists.map((r) => r.events)).toEqual([0, 2]);
    expect(l.dataFrom).toBe(T0 + 50_000);
    expect(layout(events, T0 + 115_000).dataFrom).toBeNull();
    expect(layout([], T0).dataFrom).toBe(T0);
  });
});
