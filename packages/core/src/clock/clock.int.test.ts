import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMEOUT_MS, RealClock } from './clock.ts';

describe('RealClock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not fire a timer longer than setTimeout allows early; it re-arms until due', () => {
    vi.useFakeTimers();
    const clock = new RealClock();
    let fired = 0;
    clock.setTimer(MAX_TIMEOUT_MS * 2, () => fired++);
    vi.advanceTimersByTime(MAX_TIMEOUT_MS);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(MAX_TIMEOUT_MS + 10);
    expect(fired).toBe(1);
  });

  it('runs timers faster when sped up and keeps now() continuous', () => {
    vi.useFakeTimers();
    const clock = new RealClock();
    const t0 = clock.now();
    clock.setSpeed(10);
    let fired = 0;
    clock.setTimer(10_000, () => fired++);
    vi.advanceTimersByTime(999);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(2);
    expect(fired).toBe(1);
    expect(clock.now() - t0).toBeGreaterThanOrEqual(10_000);
  });

  it('takes the state of another clock: both read the same now() and run at the same speed', () => {
    vi.useFakeTimers();
    const node = new RealClock();
    vi.advanceTimersByTime(5_000);
    node.setSpeed(10);
    vi.advanceTimersByTime(1_000); // node: 10 s of virtual time in 1 s of wall time
    const server = new RealClock();
    expect(node.now() - server.now()).toBe(9_000);
    server.setState(node.state);
    expect(server.now()).toBe(node.now());
    expect(server.speed).toBe(10);
    vi.advanceTimersByTime(2_000);
    expect(server.now()).toBe(node.now());
    expect(() => server.setState({ ...node.state, speed: 0 })).toThrow(/bad clock state/);
  });

  it('ticks every period until stopped', () => {
    vi.useFakeTimers();
    const clock = new RealClock();
    let n = 0;
    const t = clock.setTicker(1_000, () => n++);
    vi.advanceTimersByTime(3_500);
    expect(n).toBe(3);
    t.stop();
    vi.advanceTimersByTime(5_000);
    expect(n).toBe(3);
  });
});
