import { scaleBand, scaleLinear, ticks } from 'd3';
import { describe, expect, it } from 'vitest';
import { bands, linearScale, niceTicks } from './linear-scale.ts';

describe('the node charts’ scales', () => {
  it('map and tick as d3’s scaleLinear does', () => {
    const domains: [number, number][] = [
      [0, 2_500],
      [0, 1_250],
      [-60_000, 0],
      [-300_000, 0],
      [1_700_000_000_000, 1_700_000_060_000],
      [0, 0.37],
      [0, 7],
      [-3, 1_000_003],
    ];
    for (const d of domains) {
      const mine = linearScale(d, [120, 0]);
      const theirs = scaleLinear().domain(d).range([120, 0]);
      for (const v of [d[0], d[1], (d[0] + d[1]) / 2, d[0] - 17]) expect(mine(v)).toBeCloseTo(theirs(v), 6);
      for (const n of [2, 3, 6, 10]) {
        const want = ticks(d[0], d[1], n);
        const got = niceTicks(d[0], d[1], n);
        expect(got.length, `${d} / ${n}`).toBe(want.length);
        for (const [i, t] of got.entries()) expect(t).toBeCloseTo(want[i] as number, 9);
      }
    }
    expect(linearScale([5, 5], [0, 10])(5)).toBe(5);
    expect(niceTicks(5, 5, 3)).toEqual([5]);
    expect(niceTicks(0, 10, 0)).toEqual([]);
  });

  it('lay bands out as d3’s scaleBand with an inner padding does', () => {
    for (const [n, width, gap] of [
      [30, 600, 0.25],
      [1, 200, 0.25],
      [12, 333, 0.1],
    ] as const) {
      const mine = bands(n, [0, width], gap);
      const theirs = scaleBand<number>()
        .domain(Array.from({ length: n }, (_, i) => i))
        .range([0, width])
        .paddingInner(gap);
      expect(mine.width).toBeCloseTo(theirs.bandwidth(), 9);
      for (let i = 0; i < n; i++) expect(mine.at(i)).toBeCloseTo(theirs(i) ?? Number.NaN, 9);
    }
  });
});
