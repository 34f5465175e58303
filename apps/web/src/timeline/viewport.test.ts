import { describe, expect, it } from 'vitest';
import { POD_REF, T0, traceBuilder } from '../lib/fixtures.ts';
import { parseRoute } from '../lib/route.ts';
import { parseStepParam, withStepParam } from '../lib/step-route.ts';
import { layoutPodTimeline } from '../lib/timeline-layout.ts';
import { hitTest } from './hit.ts';
import * as viewportFns from './viewport.ts';
import { clampWindow, keyZoom, nearestMark, panWindow, revealTime, zoomWindow } from './viewport.ts';

const bounds = { start: 0, end: 100_000 };

describe('viewport', () => {
  it('zooms around the pointer, keeping the time under it in place', () => {
    const w = zoomWindow(bounds, 20_000, 0.5, bounds);
    expect(w).toEqual({ start: 10_000, end: 60_000 });
    expect(zoomWindow(w, 10_000, 4, bounds)).toEqual(bounds);
  });

  it('zooms from the keys around the selected step, so it stays at the same place on screen', () => {
    const w = { start: 20_000, end: 60_000 };
    const place = (win: { start: number; end: number }, t: number) => (t - win.start) / (win.end - win.start);
    const z = keyZoom(w, 30_000, 0.5, bounds);
    expect(z).toEqual({ start: 25_000, end: 45_000 });
    expect(place(z as { start: number; end: number }, 30_000)).toBeCloseTo(place(w, 30_000));
    // a step off screen: around the centre; zooming out to everything goes back to following live
    expect(keyZoom(w, 90_000, 0.5, bounds)).toEqual({ start: 30_000, end: 50_000 });
    expect(keyZoom({ start: 10_000, end: 90_000 }, 50_000, 2, bounds)).toBeNull();
  });

  it('pans by a fraction of the span and stops at the ends', () => {
    const w = { start: 10_000, end: 30_000 };
    expect(panWindow(w, 0.5, bounds)).toEqual({ start: 20_000, end: 40_000 });
    expect(panWindow(w, -5, bounds)).toEqual({ start: 0, end: 20_000 });
    expect(panWindow(w, 50, bounds)).toEqual({ start: 80_000, end: 100_000 });
  });

  it('never zooms narrower than 200 ms', () => {
    expect(clampWindow({ start: 500, end: 510 }, bounds)).toEqual({ start: 500, end: 700 });
  });

  it('reveals a time outside the window by centring it', () => {
    const w = { start: 10_000, end: 20_000 };
    expect(revealTime(w, 15_000, bounds)).toBe(w);
    expect(revealTime(w, 50_000, bounds)).toEqual({ start: 45_000, end: 55_000 });
  });

  it('finds the nearest mark within the tolerance', () => {
    const marks = [{ time: 10 }, { time: 20 }, { time: 40 }];
    expect(nearestMark(marks, 24, 5)).toBe(marks[1]);
    expect(nearestMark(marks, 31, 5)).toBeUndefined();
    expect(nearestMark(marks, 100, 60)).toBe(marks[2]);
  });
});

describe('hitTest', () => {
  const ev = traceBuilder(1);
  const layout = layoutPodTimeline(
    [
      ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
      ev(2, {
        type: 'probe.result',
        container: 'app',
        probe: 'Readiness',
        result: 'Failure',
        output: 'HTTP 503',
        ...POD_REF,
      }),
      ev(3, {
        type: 'k8s.event',
        eventType: 'Warning',
        reason: 'BackOff',
        message: 'Back-off restarting failed container app',
        count: 1,
        ...POD_REF,
      }),
    ],
    T0 + 10_000,
  );

  it('names the probe and the Event under the pointer with their seq', () => {
    expect(hitTest(layout, 5, T0 + 2_100, 200, () => 'T')).toEqual({
      seq: 2,
      lines: ['Readiness app: Failure', 'HTTP 503', 'T'],
    });
    expect(hitTest(layout, 6, T0 + 2_900, 200)?.seq).toBe(3);
    expect(hitTest(layout, 6, T0 + 5_000, 200)).toBeNull();
    expect(hitTest(layout, 0, T0 + 5_000, 200)?.lines[0]).toBe('SyncPod');
  });
});

describe('step in the URL', () => {
  it('reads and writes ?step= without changing the route', () => {
    const hash = '#/pods/default/crashloop?step=42';
    expect(parseStepParam(hash)).toBe(42);
    expect(parseRoute(hash)).toEqual({ view: 'pod', namespace: 'default', name: 'crashloop' });
    expect(withStepParam(hash, 7)).toBe('#/pods/default/crashloop?step=7');
    expect(withStepParam(hash, null)).toBe('#/pods/default/crashloop');
    expect(withStepParam('#/pods/a/b', 3)).toBe('#/pods/a/b?step=3');
    expect(parseStepParam('#/pods/a/b?step=x')).toBeNull();
  });
});

describe('wheel zoom factor', () => {
  it('grows with the scroll distance, zooms in for a scroll up and faster for a pinch', () => {
    const { wheelZoomFactor, timeAt } = viewportFns;
    expect(wheelZoomFactor(-100, 0, false)).toBeLessThan(1);
    expect(wheelZoomFactor(100, 0, false)).toBeGreaterThan(1);
    expect(wheelZoomFactor(100, 0, false)).toBeCloseTo(1 / wheelZoomFactor(-100, 0, false));
    expect(wheelZoomFactor(-200, 0, false)).toBeLessThan(wheelZoomFactor(-100, 0, false));
    expect(wheelZoomFactor(-3, 1, false)).toBeCloseTo(wheelZoomFactor(-48, 0, false));
    expect(wheelZoomFactor(-10, 0, true)).toBeLessThan(wheelZoomFactor(-10, 0, false));
    // one notch never more than e×
    expect(wheelZoomFactor(-10_000, 0, false)).toBeCloseTo(Math.exp(-1));
    expect(timeAt({ start: 1000, end: 2000 }, 150, 100, 300)).toBe(1250);
  });
});
