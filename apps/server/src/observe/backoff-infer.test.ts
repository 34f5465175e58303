import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { PodRef, TraceOf } from '@syncscope/core/events/trace';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { ContainerStatusRT } from '@syncscope/core/kubelet/container/runtime';
import { describe, expect, it } from 'vitest';
import { type BackoffRule, InferredBackoff, previousExitAt } from './backoff-infer.ts';

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

  it('steps the window for a restart whose previous instance was never seen', async () => {
    const instance = (
      id: string,
      restartCount: number,
      createdAt: number,
      finishedAt = 0,
    ): ContainerStatusRT => ({
      id,
      name: 'app',
      state: finishedAt ? 'exited' : 'running',
      createdAt,
      startedAt: createdAt + 5,
      finishedAt,
      exitCode: finishedAt ? 1 : 0,
      image: 'busybox',
      imageRef: 'busybox',
      hash: 'h',
      restartCount,
      reason: '',
      message: '',
    });
    // the first instance of a container: nothing before it
    expect(previousExitAt([], instance('a', 0, 1_000), undefined)).toBeUndefined();
    // the previous instance is still listed: its exit
    const first = instance('a', 0, 1_000, 1_500);
    expect(previousExitAt([first], instance('b', 1, 2_000), undefined)).toBe(1_500);
    // removed, but its exit was seen
    expect(previousExitAt([], instance('b', 1, 2_000), 1_500)).toBe(1_500);
    // never seen: the restart count says one ran and exited before this one was created
    const second = instance('b', 1, 2_000, 2_100);
    expect(previousExitAt([second], second, undefined)).toBe(2_000);
    // and so the exit that follows is held for the first window, as the kubelet holds it
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock);
    const b = new InferredBackoff(clock, trace, defaultKubeletConfiguration);
    b.restarted(POD, 'app', previousExitAt([second], second, undefined) as number, second.startedAt);
    b.exited(POD, 'app', second.finishedAt, 1, 1);
    const windows = trace.since(0).filter((e): e is TraceOf<'backoff'> => e.type === 'backoff');
    expect(windows.map((w) => [w.delayS, w.until])).toEqual([[10, 12_100]]);
  });
});
