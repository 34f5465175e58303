import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { PodRef, TraceOf } from '@syncscope/core/events/trace';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { describe, expect, it } from 'vitest';
import { type BackoffRule, InferredBackoff } from './backoff-infer.ts';

const POD: PodRef = { podUID: 'u1', pod: 'default/crash' };

/** Plays a crash loop as the runtime shows it: each instance runs `runMs`, then waits out the window. */
async function crashLoop(rule: BackoffRule, exits: number, runMs: number) {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const b = new InferredBackoff(clock, trace, rule);
  let restarts = 0;
  for (let i = 0; i < exits; i++) {
    await clock.step(runMs);
    const finishedAt = clock.now();
    b.exited(POD, 'app', finishedAt, 2, restarts);
    await clock.step(b.windowMs('u1', 'app') + 400); // the kubelet restarts once the window is out
    b.restarted(POD, 'app', finishedAt);
    restarts++;
  }
  return trace.since(0).filter((e): e is TraceOf<'backoff'> => e.type === 'backoff');
}

describe('InferredBackoff', () => {
  it('follows the kubelet ladder: none at the first exit, then 10 s doubling to the 5 min cap', async () => {
    const windows = await crashLoop(defaultKubeletConfiguration, 8, 1_000);
    expect(windows.map((w) => w.delayS)).toEqual([10, 20, 40, 80, 160, 300, 300]);
    expect(windows.every((w) => w.inferred === true && w.until - w.time <= w.delayS * 1000)).toBe(true);
    expect(windows.map((w) => w.restartCount)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('starts over once a container ran longer than the reset period', async () => {
    const windows = await crashLoop(defaultKubeletConfiguration, 3, 11 * 60_000);
    expect(windows).toEqual([]);
  });

  it('takes the node kubelet configuration', async () => {
    const rule = {
      containerBackOffPeriodMs: 1_000,
      maxContainerBackOffMs: 4_000,
      containerBackOffResetMs: 60_000,
    };
    const windows = await crashLoop(rule, 5, 100);
    expect(windows.map((w) => w.delayS)).toEqual([1, 2, 4, 4]);
  });

  it('forgets a pod that left the runtime', async () => {
    const clock = new FakeClock();
    const b = new InferredBackoff(clock, new TraceRecorder(clock), defaultKubeletConfiguration);
    b.restarted(POD, 'app', clock.now());
    expect(b.windowMs('u1', 'app')).toBe(10_000);
    b.forget('u1');
    expect(b.windowMs('u1', 'app')).toBe(0);
  });

  it('keeps the last exit of a container, for a restart seen after its instance was removed', async () => {
    const clock = new FakeClock();
    const b = new InferredBackoff(clock, new TraceRecorder(clock), defaultKubeletConfiguration);
    expect(b.lastExitAt('u1', 'app')).toBeUndefined();
    b.exited(POD, 'app', 5_000, 1, 0);
    expect(b.lastExitAt('u1', 'app')).toBe(5_000);
    b.restarted(POD, 'app', b.lastExitAt('u1', 'app') as number);
    b.exited(POD, 'app', 9_000, 1, 1);
    b.restarted(POD, 'app', b.lastExitAt('u1', 'app') as number);
    expect(b.windowMs('u1', 'app')).toBe(20_000);
  });
});
