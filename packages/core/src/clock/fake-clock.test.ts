import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.ts';

describe('FakeClock', () => {
  it('stands still until stepped, then moves by exactly the step', async () => {
    const clock = new FakeClock(1_000);
    expect(clock.now()).toBe(1_000);
    await clock.step(250);
    expect(clock.now()).toBe(1_250);
    expect(clock.since(1_000)).toBe(250);
  });

  it('fires due timers in time order, ties in the order they were set, each at its own time', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push(`c@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(31, () => fired.push('late'));
    await clock.step(30);
    expect(fired).toEqual(['a@10', 'b@10', 'c@30']);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.nextTimerAt()).toBe(31);
  });

  it('runs a timer set by a timer within the same step when it falls due inside it', async () => {
    const clock = new FakeClock(0);
    const fired: number[] = [];
    clock.setTimer(10, () => clock.setTimer(5, () => fired.push(clock.now())));
    await clock.step(20);
    expect(fired).toEqual([15]);
  });

  it('lets the promise jobs of one timer run before the next fires', async () => {
    const clock = new FakeClock(0);
    const seen: string[] = [];
    clock.setTimer(10, () => {
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => seen.push('job of the first'));
    });
    clock.setTimer(10, () => seen.push('second timer'));
    await clock.step(10);
    expect(seen).toEqual(['job of the first', 'second timer']);
  });

  it('ticks at each period until stopped; a stopped timer never fires and says it was live', async () => {
    const clock = new FakeClock(0);
    const ticks: number[] = [];
    const ticker = clock.setTicker(100, () => ticks.push(clock.now()));
    await clock.step(350);
    expect(ticks).toEqual([100, 200, 300]);
    expect(ticker.stop()).toBe(true);
    expect(ticker.stop()).toBe(false);
    await clock.step(1_000);
    expect(ticks).toEqual([100, 200, 300]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('sleeps in fake time, and an abort ends the sleep at once', async () => {
    const clock = new FakeClock(0);
    let woke = -1;
    void clock.sleep(500).then(() => {
      woke = clock.now();
    });
    await clock.step(499);
    expect(woke).toBe(-1);
    await clock.step(1);
    expect(woke).toBe(500);

    const ac = new AbortController();
    const aborted = clock.sleep(10_000, ac.signal).then(
      () => 'slept',
      () => 'aborted',
    );
    ac.abort();
    expect(await aborted).toBe('aborted');
    expect(clock.now()).toBe(500);
  });

  it('steps until a condition holds, or says it did not within the limit', async () => {
    const clock = new FakeClock(0);
    expect(await clock.stepUntil(() => clock.now() >= 300, 1_000)).toBe(true);
    expect(clock.now()).toBe(300);
    expect(await clock.stepUntil(() => false, 200, 50)).toBe(false);
    expect(clock.now()).toBe(500);
  });
});
