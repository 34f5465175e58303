import { describe, expect, it } from 'vitest';
import { T0, traceBuilder } from './fixtures.ts';
import { layoutLoopStrip, MIN_MARK_PX, relativeLabel } from './loop-strip.ts';

const at = (s: number) => T0 + s * 1000;

describe('layoutLoopStrip', () => {
  it('places each iteration of the last 60 s in its source lane, from its start to its end', () => {
    const ev = traceBuilder();
    const events = [
      ev(10, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }), // older than the window
      ev(70, { type: 'loop.iteration', source: 'pleg', pods: 1, durationMs: 600 }),
      ev(75, { type: 'loop.iteration', source: 'housekeeping', pods: 0, durationMs: 3 }),
      ev(76, { type: 'loop.iteration', source: 'sync', pods: 2, durationMs: 1 }),
    ];
    const l = layoutLoopStrip(events, at(100), 600);
    expect(l.iterations.map((m) => m.source)).toEqual(['pleg', 'housekeeping', 'sync']);
    expect(l.counts).toEqual({ config: 0, pleg: 1, sync: 1, probe: 0, housekeeping: 1 });
    const pleg = l.iterations[0];
    // 600 px for 60 s: 10 px per second; the pleg iteration ran from 69.4 s to 70 s (30 s before now).
    expect(pleg?.x).toBeCloseTo(294);
    expect(pleg?.width).toBeCloseTo(6);
    expect(pleg?.y).toBe(l.laneY.pleg);
    expect(l.laneY.pleg).not.toBe(l.laneY.sync);
    // a 1 ms iteration is still visible
    expect(l.iterations[2]?.width).toBe(MIN_MARK_PX);
  });

  it('draws a skipped iteration over its backoff and a fault as a marker', () => {
    const ev = traceBuilder();
    const events = [
      ev(90, { type: 'sim.fault', fault: 'outage', detail: 'runtime down for 5s' }),
      ev(91, { type: 'loop.skipped', errors: ['container runtime is down'], backoffMs: 3200 }),
      ev(99, { type: 'loop.skipped', errors: ['container runtime is down'], backoffMs: 5000 }),
    ];
    const l = layoutLoopStrip(events, at(100), 600);
    expect(l.faults).toEqual([
      { seq: 1, time: at(90), fault: 'outage', detail: 'runtime down for 5s', x: 500 },
    ]);
    expect(l.skippedCount).toBe(2);
    expect(l.skipped[0]?.x).toBeCloseTo(510);
    expect(l.skipped[0]?.width).toBeCloseTo(32);
    // the band of the last one is cut at now
    expect((l.skipped[1]?.x ?? 0) + (l.skipped[1]?.width ?? 0)).toBeCloseTo(600);
  });

  it('ignores events after now and labels the axis relative to now', () => {
    const ev = traceBuilder();
    const l = layoutLoopStrip(
      [ev(101, { type: 'loop.iteration', source: 'config', pods: 1, durationMs: 0 })],
      at(100),
      600,
    );
    expect(l.iterations).toEqual([]);
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
    const l = layoutLoopStrip(events, T0 + 60_000, 600);
    expect(l.relists.map((r) => r.events)).toEqual([0, 2]);
    expect(l.dataFrom).toBe(T0 + 50_000);
    expect(layoutLoopStrip(events, T0 + 115_000, 600).dataFrom).toBeNull();
    expect(layoutLoopStrip([], T0, 600).dataFrom).toBe(T0);
  });
});
