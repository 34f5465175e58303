import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../clock/fake-clock.ts';
import { Backoff, expireAfter } from './backoff.ts';
import { formatGoDuration } from './go-duration.ts';

/** The kubelet's container backoff: 10 s doubling to 300 s, reset 600 s after the last update. */
function containerBackoff(clock: FakeClock): Backoff {
  return new Backoff(clock, 10_000, 300_000, expireAfter(600_000));
}

describe('Backoff', () => {
  it('walks the CrashLoopBackOff ladder 10s → 5m0s and stays at the cap', async () => {
    const clock = new FakeClock();
    const b = containerBackoff(clock);
    const seen: string[] = [];
    for (let i = 0; i < 7; i++) {
      b.next('k', clock.now());
      seen.push(formatGoDuration(b.get('k')));
      await clock.step(1_000);
    }
    expect(seen).toEqual(['10s', '20s', '40s', '1m20s', '2m40s', '5m0s', '5m0s']);
  });

  it('is in backoff since the event time for exactly the window', async () => {
    const clock = new FakeClock();
    const b = containerBackoff(clock);
    const finishedAt = clock.now();
    expect(b.isInBackOffSince('k', finishedAt)).toBe(false);
    b.next('k', finishedAt);
    expect(b.isInBackOffSince('k', finishedAt)).toBe(true);
    await clock.step(9_999);
    expect(b.isInBackOffSince('k', finishedAt)).toBe(true);
    await clock.step(1);
    expect(b.isInBackOffSince('k', finishedAt)).toBe(false);
  });

  it('resets to 10s when the failure comes more than 600 s after the last update', async () => {
    const clock = new FakeClock();
    const b = containerBackoff(clock);
    for (let i = 0; i < 4; i++) b.next('k', clock.now());
    expect(b.get('k')).toBe(80_000);
    await clock.step(600_000);
    // exactly 600 s is not yet expired
    expect(b.isInBackOffSince('k', clock.now() - 1)).toBe(true);
    await clock.step(1);
    const finishedAt = clock.now();
    expect(b.isInBackOffSince('k', finishedAt)).toBe(false);
    b.next('k', finishedAt);
    expect(b.get('k')).toBe(10_000);
  });

  it('image backoff checks against the last update and expires after 2×max by default', async () => {
    const clock = new FakeClock();
    const b = new Backoff(clock, 10_000, 300_000);
    b.next('img', clock.now());
    await clock.step(5_000);
    expect(b.isInBackOffSinceUpdate('img', clock.now())).toBe(true);
    await clock.step(5_000);
    expect(b.isInBackOffSinceUpdate('img', clock.now())).toBe(false);
    b.next('img', clock.now());
    expect(b.get('img')).toBe(20_000);
    await clock.step(600_001);
    expect(b.gc()).toBe(1);
    expect(b.get('img')).toBe(0);
  });

  it('gc keeps live entries', async () => {
    const clock = new FakeClock();
    const b = containerBackoff(clock);
    b.next('old', clock.now());
    await clock.step(500_000);
    b.next('new', clock.now());
    await clock.step(100_001);
    b.gc();
    expect(b.get('old')).toBe(0);
    expect(b.get('new')).toBe(10_000);
  });
});

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [10_000, '10s'],
    [20_000, '20s'],
    [40_000, '40s'],
    [80_000, '1m20s'],
    [160_000, '2m40s'],
    [300_000, '5m0s'],
    [1_500, '1.5s'],
    [1_234, '1.234s'],
    [3_600_000, '1h0m0s'],
    [3_725_000, '1h2m5s'],
    [250, '250ms'],
    [0.5, '500µs'],
    [-1_500, '-1.5s'],
  ])('%d ms → %s', (ms, want) => {
    expect(formatGoDuration(ms)).toBe(want);
  });
});
