import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { POD_REF, T0, traceBuilder } from './fixtures.ts';
import { indexAtTime, indexFromTime, matchSteps, nextMatch, parseClock } from './step-search.ts';
import { rangeTotals } from './timeline-range.ts';

function crashLoop(): TraceEvent[] {
  const ev = traceBuilder(1);
  const start = (at: number, attempt: number) =>
    ev(at, {
      type: 'runtime.call',
      method: 'StartContainer',
      container: 'app',
      attempt,
      durationMs: 5,
      ...POD_REF,
    });
  return [
    ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
    ev(0, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodCreate', ...POD_REF }),
    start(1, 0),
    ev(1, { type: 'sync.result', workType: 'SyncPod', actions: [], durationMs: 1000, ...POD_REF }),
    ev(5, {
      type: 'pleg.event',
      event: 'ContainerDied',
      containerID: 'c1',
      containerName: 'app',
      ...POD_REF,
    }),
    ev(6, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [],
      durationMs: 3,
      error: 'back-off 10s restarting failed container=app',
      ...POD_REF,
    }),
    start(16, 1),
    ev(16, { type: 'sync.result', workType: 'SyncPod', actions: [], durationMs: 3, ...POD_REF }),
    start(40, 2),
    ev(41, { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...POD_REF }),
  ];
}

describe('step search', () => {
  it('finds the steps whose words hold every word of the query, any case, and steps through them round', () => {
    const events = crashLoop();
    const m = matchSteps(events, 'BACK-OFF app');
    expect(m.map((i) => events[i]?.seq)).toEqual([6]);
    const starts = matchSteps(events, 'startcontainer');
    expect(starts).toEqual([2, 6, 8]);
    expect(nextMatch(starts, 2, 1)).toBe(6);
    expect(nextMatch(starts, 8, 1)).toBe(2);
    expect(nextMatch(starts, 2, -1)).toBe(8);
    expect(nextMatch(starts, 7, -1)).toBe(6);
    expect(matchSteps(events, '   ')).toEqual([]);
    expect(matchSteps(events, 'startcontainer', (e) => e.time > T0 + 10_000)).toEqual([6, 8]);
  });

  it('reads a clock time on the day of the reference, and finds the step at it', () => {
    const ref = T0 + 30_000; // 12:00:30 UTC
    expect(parseClock('12:00:16', ref, true)).toBe(T0 + 16_000);
    expect(parseClock('12:00:16.5', ref, true)).toBe(T0 + 16_500);
    expect(parseClock('11:59', ref, true)).toBe(T0 - 60_000);
    // just after midnight, 23:59:59 is the day before
    const midnight = Date.parse('2025-01-11T00:00:01Z');
    expect(parseClock('23:59:59', midnight, true)).toBe(Date.parse('2025-01-10T23:59:59Z'));
    for (const bad of ['noon', '25:00:00', '12:61', '12:00:00 pm', ''])
      expect(parseClock(bad, ref)).toBeNull();
    const events = crashLoop();
    expect(indexAtTime(events, T0 + 10_000)).toBe(5);
    expect(indexFromTime(events, T0 + 10_000)).toBe(6);
    expect(indexAtTime(events, T0 - 1)).toBe(0);
    expect(indexFromTime(events, T0)).toBe(0);
    expect(indexFromTime(events, T0 + 99_000)).toBe(9);
    expect(indexAtTime([], T0)).toBe(-1);
  });
});

describe('range totals', () => {
  it('counts the syncs, errors and restarts in the range and the time in each worker state', () => {
    const events = crashLoop();
    const bands = [
      { state: 'SyncPod' as const, start: T0, end: T0 + 41_000, open: false },
      { state: 'TerminatingPod' as const, start: T0 + 41_000, end: T0 + 50_000, open: true },
    ];
    const all = rangeTotals(events, bands, T0, T0 + 50_000);
    expect(all).toMatchObject({ steps: 10, syncs: 3, errors: 1, restarts: 2 });
    expect(all.worker).toEqual([
      { state: 'SyncPod', ms: 41_000 },
      { state: 'TerminatingPod', ms: 9_000 },
    ]);
    // from 10 s to 45 s, dragged right to left: the start at 16 s follows the one at 1 s, before the range
    const part = rangeTotals(events, bands, T0 + 45_000, T0 + 10_000);
    expect(part).toMatchObject({ start: T0 + 10_000, end: T0 + 45_000, syncs: 1, errors: 0, restarts: 2 });
    expect(part.worker).toEqual([
      { state: 'SyncPod', ms: 31_000 },
      { state: 'TerminatingPod', ms: 4_000 },
    ]);
  });
});
