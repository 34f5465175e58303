/**
 * The node page's charts' scales (the loop strip, the housekeeping cadence): a linear map from a domain to
 * a range, round ticks across a domain, and equal bands with a gap between them. They place marks as
 * d3-scale's scaleLinear and scaleBand would (the same tick steps: 1, 2 or 5 times a power of ten), without
 * d3's interpolators, colours and number formats, which those charts never use and which the node page's
 * first chunk would otherwise carry. The pod page's timeline keeps d3 (its time scale, axis and brush).
 */

/** A linear map of [d0, d1] onto [r0, r1]; a domain of one point maps to the middle of the range. */
export type LinearScale = (v: number) => number;

export function linearScale(
  [d0, d1]: readonly [number, number],
  [r0, r1]: readonly [number, number],
): LinearScale {
  if (d1 === d0) return () => (r0 + r1) / 2;
  const k = (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

/**
 * About `count` round values from `start` to `stop` (inclusive, ascending): multiples of a step of 1, 2 or
 * 5 × 10^k, the one nearest (geometrically) to the span over `count`.
 */
export function niceTicks(start: number, stop: number, count: number): number[] {
  if (!(count > 0) || !(stop >= start)) return [];
  if (start === stop) return [start];
  const raw = (stop - start) / count;
  const power = Math.floor(Math.log10(raw));
  const mantissa = raw / 10 ** power;
  // the thresholds sit halfway (geometrically) between the steps 1, 2, 5 and 10
  const factor =
    mantissa >= Math.sqrt(50) ? 10 : mantissa >= Math.sqrt(10) ? 5 : mantissa >= Math.sqrt(2) ? 2 : 1;
  // a step below 1 is kept as its inverse, so the ticks are whole numbers divided, not fractions multiplied
  const inverse = power < 0 ? 10 ** -power / factor : 0;
  const step = power < 0 ? 0 : factor * 10 ** power;
  const at = (i: number) => (inverse ? i / inverse : i * step);
  const first = inverse ? Math.ceil(start * inverse) : Math.ceil(start / step);
  const last = inverse ? Math.floor(stop * inverse) : Math.floor(stop / step);
  const out: number[] = [];
  for (let i = first; i <= last; i++) out.push(at(i));
  return out;
}

/**
 * `n` equal bands across [r0, r1], each followed by a gap of `gap` (a share of a band's step) but the last;
 * a step is never wider than the range, so one band (or a few with a wide gap) sits in its middle.
 */
export interface Bands {
  /** left edge of band i */
  at(i: number): number;
  width: number;
}

export function bands(n: number, [r0, r1]: readonly [number, number], gap: number): Bands {
  const step = (r1 - r0) / Math.max(1, n - gap);
  const left = r0 + (r1 - r0 - step * (n - gap)) / 2;
  return { at: (i) => left + step * i, width: step * (1 - gap) };
}
