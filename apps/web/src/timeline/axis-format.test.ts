import { scaleTime } from 'd3';
import { describe, expect, it } from 'vitest';
import { clockLabel, tickLabels } from './axis-format.ts';
import { zoomWindow } from './viewport.ts';

const T0 = Date.parse('2025-01-10T12:00:00Z');

describe('axis labels', () => {
  it('never repeat, from hours down to the narrowest zoom', () => {
    for (const span of [3_600_000, 300_000, 12_000, 5_500, 2_000, 900, 200]) {
      for (const n of [4, 8, 11, 16]) {
        const ticks = scaleTime()
          .domain([T0 + 123, T0 + 123 + span])
          .ticks(n)
          .map(Number);
        const labels = tickLabels(ticks);
        expect(new Set(labels).size, `${span} ms in ${n} ticks: ${labels.join(' ')}`).toBe(labels.length);
      }
    }
  });

  it('prints only the digits the spacing needs', () => {
    expect(tickLabels([T0, T0 + 1000]).map((l) => l.length)).toEqual([8, 8]);
    const half = tickLabels([T0, T0 + 500, T0 + 1000]);
    expect(half[1]?.endsWith('.5')).toBe(true);
    expect(clockLabel(T0 + 20, 2).endsWith('.02')).toBe(true);
  });
});

describe('wheel zoom at the limit', () => {
  it('keeps the time under the pointer when the narrowest span stops the zoom', () => {
    const bounds = { start: 0, end: 100_000 };
    let w = { start: 40_000, end: 41_000 };
    const focus = 40_700;
    const place = (v: { start: number; end: number }) => (focus - v.start) / (v.end - v.start);
    for (let i = 0; i < 12; i++) {
      const next = zoomWindow(w, focus, 0.8, bounds);
      expect(place(next)).toBeCloseTo(place(w), 9);
      w = next;
    }
    expect(w.end - w.start).toBe(200);
  });
});
