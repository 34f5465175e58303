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

/** A container that crashed twice, both exits seen: the second is held for 10 s. */
async function twoExits() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const b = new InferredBackoff(clock, trace, defaultKubeletConfiguration);
  b.exited(POD, 'app', clock.now(), 2, 0);
  await clock.step(500);
  b.restarted(POD, 'app', clock.now() - 500);
  await clock.step(1_000);
  const died2 = clock.now();
  b.exited(POD, 'app', died2, 2, 1);
  const windows = (container = 'app') =>
    trace
      .since(0)
      .filter((e): e is TraceOf<'backoff'> => e.type === 'backoff' && e.container === container)
      .map((w) => [w.delayS, w.until, w.confirmed ? 'confirmed' : 'inferred']);
  return { clock, b, died2, windows };
}

describe('InferredBackoff: which exit a window the log states is about', () => {
  it('a line that comes before the relist showing its exit goes to that exit, not the one before', async () => {
    const { clock, b, died2, windows } = await twoExits();
    // the kubelet restarts the container once 10 s are out (its window steps to 20 s), the new instance
    // crashes at once, and "back-off 20s" reaches us before our relist shows the new instance or its exit
    await clock.step(10_400);
    const started3 = clock.now();
    await clock.step(300);
    const died3 = clock.now();
    await clock.step(200);
    expect(b.confirm(POD, 'app', 20, clock.now())).toBe(true);
    expect(windows()).toEqual([[10, died2 + 10_000, 'inferred']]);
    // the relist: a new instance, already exited
    await clock.step(300);
    b.relisted(clock.now());
    b.restarted(POD, 'app', died2, started3);
    b.exited(POD, 'app', died3, 2, 2);
    for (let i = 0; i < 3; i++) b.relisted(clock.now()); // nothing left to settle
    expect(windows()).toEqual([
      [10, died2 + 10_000, 'inferred'],
      [20, died3 + 20_000, 'inferred'],
      [20, died3 + 20_000, 'confirmed'],
    ]);
    expect(b.windowMs('u1', 'app')).toBe(20_000);
  });

  it('a line that comes after the relist showing its exit is taken at once', async () => {
    const { clock, b, died2, windows } = await twoExits();
    await clock.step(10_400);
    b.restarted(POD, 'app', died2);
    await clock.step(300);
    const died3 = clock.now();
    b.exited(POD, 'app', died3, 2, 2);
    await clock.step(700);
    expect(b.confirm(POD, 'app', 20, clock.now())).toBe(true);
    expect(windows().slice(1)).toEqual([
      [20, died3 + 20_000, 'inferred'],
      [20, died3 + 20_000, 'confirmed'],
    ]);
    // the kubelet says it again at its next sync inside the window: one confirmation
    await clock.step(12_000);
    expect(b.confirm(POD, 'app', 20, clock.now())).toBe(false);
    expect(windows()).toHaveLength(3);
  });

  it('a line from a sync that read a stale status goes to the old exit when no new exit shows up', async () => {
    const { clock, b, died2, windows } = await twoExits();
    // the relist shows the restart (the window steps to 20 s); a sync that read the status from before it
    // says "back-off 20s" about the exit that is already over
    await clock.step(10_400);
    b.restarted(POD, 'app', died2);
    await clock.step(200);
    expect(b.confirm(POD, 'app', 20, clock.now())).toBe(true);
    expect(windows()).toEqual([[10, died2 + 10_000, 'inferred']]);
    b.relisted(clock.now()); // listed after the line: its events are read before the next relist
    expect(windows()).toEqual([[10, died2 + 10_000, 'inferred']]);
    await clock.step(1_000);
    b.relisted(clock.now());
    expect(windows()).toEqual([
      [10, died2 + 10_000, 'inferred'],
      [20, died2 + 20_000, 'confirmed'],
    ]);
    // said again while that window runs: recorded once
    await clock.step(5_000);
    expect(b.confirm(POD, 'app', 20, clock.now())).toBe(false);
    // the running instance crashes: held for the 20 s the kubelet stepped to, not doubled again
    const died3 = clock.now();
    b.exited(POD, 'app', died3, 2, 2);
    expect(windows().at(-1)).toEqual([20, died3 + 20_000, 'inferred']);
  });

  it('a line for a container with no exit seen goes to the exit the next relist shows', async () => {
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock);
    const b = new InferredBackoff(clock, trace, defaultKubeletConfiguration);
    // the observer came up while the container ran an instance with restarts before it
    b.restarted(POD, 'app', clock.now());
    await clock.step(2_000);
    const died = clock.now();
    await clock.step(400);
    expect(b.confirm(POD, 'app', 40, clock.now())).toBe(true);
    expect(trace.since(0).filter((e) => e.type === 'backoff')).toEqual([]);
    await clock.step(300);
    b.relisted(clock.now());
    b.exited(POD, 'app', died, 2, 3);
    const windows = trace.since(0).filter((e): e is TraceOf<'backoff'> => e.type === 'backoff');
    expect(windows.map((w) => [w.delayS, w.until, w.confirmed, w.restartCount])).toEqual([
      [10, died + 10_000, undefined, 3],
      [40, died + 40_000, true, 3],
    ]);
    expect(b.windowMs('u1', 'app')).toBe(40_000);
  });

  it('a line for a container with no exit seen by the relist after is counted from its own time', async () => {
    const { clock, b, windows } = await twoExits();
    const said = clock.now();
    expect(b.confirm(POD, 'init', 10, said)).toBe(true);
    b.relisted(clock.now());
    expect(windows('init')).toEqual([]);
    b.relisted(clock.now());
    expect(windows('init')).toEqual([[10, said + 10_000, 'confirmed']]);
    expect(b.confirm(POD, 'init', 10, said)).toBe(false);
  });

  it('holds a few lines per container and forgets them with the pod', async () => {
    const { clock, b, died2, windows } = await twoExits();
    const said = clock.now() + 100;
    for (const delayS of [20, 40, 80, 160]) expect(b.confirm(POD, 'app', delayS, said)).toBe(true);
    expect(b.confirm(POD, 'app', 40, said)).toBe(false); // the same line again
    expect(windows()).toHaveLength(1);
    // one more than the container holds: the oldest goes to the exit it was held against
    expect(b.confirm(POD, 'app', 300, said)).toBe(true);
    expect(windows().slice(1)).toEqual([[20, died2 + 20_000, 'confirmed']]);
    b.forget('u1');
    for (let i = 0; i < 3; i++) b.relisted(clock.now());
    expect(windows()).toHaveLength(2);
  });
});
