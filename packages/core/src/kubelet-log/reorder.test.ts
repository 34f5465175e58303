/**
 * The reorder window: events leave in (time, arrival) order once the newest time is a window past them, however
 * many wait (the ring grows and wraps) and wherever a late-stamped line lands.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { ReorderBuffer } from './reorder.ts';

const ev = (time: number, seq: number): TraceEvent =>
  ({ type: 'log.raw', text: '', seq, time, node: 'n' }) as unknown as TraceEvent;

function run(times: number[], windowMs: number, maxEvents?: number) {
  const out: TraceEvent[] = [];
  const r = new ReorderBuffer((e) => out.push(e), windowMs, maxEvents);
  for (const [i, t] of times.entries()) r.push(ev(t, i));
  r.flush();
  return { out, late: r.late };
}

describe('ReorderBuffer', () => {
  it('sorts by time, keeping arrival order among equal times, through growth and wrap-around', () => {
    // 5000 events, each block of 7 written backwards in pairs of equal times, and every 100th stamped half a
    // window late
    const times: number[] = [];
    for (let i = 0; i < 5000; i++)
      times.push(Math.floor(i / 7) * 7 + ((6 - (i % 7)) >> 1) - (i % 100 === 0 ? 50 : 0));
    const { out, late } = run(times, 100);
    expect(late).toBe(0);
    expect(out).toHaveLength(times.length);
    const want = times.map((t, i) => ({ t, i })).sort((a, b) => a.t - b.t || a.i - b.i);
    expect(out.map((e) => e.seq)).toEqual(want.map((w) => w.i));
  });

  it('lets an event out once the newest time is a window past it, before the input ends', () => {
    const out: number[] = [];
    const r = new ReorderBuffer((e) => out.push(e.time), 1000);
    for (const t of [0, 500, 999, 1000]) r.push(ev(t, 0));
    expect(out).toEqual([0]);
    r.push(ev(2600, 0));
    expect(out).toEqual([0, 500, 999, 1000]);
  });

  it('lets the oldest out when maxEvents wait, and counts a line older than one let out as late', () => {
    const { out, late } = run([10, 20, 30, 40, 5], 1_000_000, 2);
    expect(out.map((e) => e.time)).toEqual([10, 20, 5, 30, 40]);
    expect(late).toBe(1);
  });
});
