import { describe, expect, it } from 'vitest';
import { type Pod, rfc3339 } from '../api/v1.ts';
import { FakeClock } from '../clock/fake-clock.ts';
import type { CriRuntime } from '../cri/types.ts';
import { TraceRecorder } from '../events/recorder.ts';
import type { TraceOf } from '../events/trace.ts';
import { Kubelet } from './kubelet.ts';
import { FakeRecorder, FakeRuntime } from './testing/fake-runtime.ts';

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const runtime = new FakeRuntime(clock);
  const kl = new Kubelet(
    { cri: {} as CriRuntime, clock, trace, runtimeEndpoint: 'fake', simulated: true, random: () => 0 },
    { runtime, recorder: new FakeRecorder() },
  );
  const pod = (uid: string, name: string): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid, name, namespace: 'default', creationTimestamp: rfc3339(clock.now()) },
    spec: {
      containers: [{ name: 'app', image: 'busybox' }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
    },
  });
  const states = (uid: string) =>
    (trace.since(0, (e) => e.type === 'worker.state' && e.podUID === uid) as TraceOf<'worker.state'>[]).map(
      (e) => e.to,
    );
  return { clock, trace, runtime, kl, pod, states };
}

describe('Kubelet sync loop (fake runtime, fake clock)', () => {
  it('addPod → Running; deletePod → Terminating → Terminated → gone', async () => {
    const { clock, runtime, kl, pod, states, trace } = setup();
    kl.start();
    kl.addPod(pod('u1', 'web'));
    expect(kl.getPods().map((p) => p.status?.phase)).toEqual(['Pending']);

    expect(
      await clock.stepUntil(() => kl.getPod('default', 'web')?.status?.phase === 'Running', 10_000),
    ).toBe(true);
    const running = kl.getPodByUID('u1');
    expect(running?.status?.podIP).toBe('10.88.0.1');
    expect(running?.status?.containerStatuses?.[0]?.state.running).toBeDefined();
    expect(running?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(runtime.calls).toContain('SyncPod');

    kl.deletePod('u1', 5);
    expect(kl.getPodByUID('u1')?.metadata.deletionTimestamp).toBeDefined();
    expect(await clock.stepUntil(() => kl.getPodByUID('u1') === undefined, 20_000)).toBe(true);
    expect(runtime.calls).toContain('KillPod(5)');
    expect(kl.getPods()).toEqual([]);
    // housekeeping forgets the worker
    expect(await clock.stepUntil(() => states('u1').includes('Forgotten'), 5_000)).toBe(true);
    expect(states('u1')).toEqual(['SyncPod', 'TerminatingPod', 'TerminatedPod', 'Finished', 'Forgotten']);

    const ops = (trace.since(0, (e) => e.type === 'config.update') as TraceOf<'config.update'>[]).map(
      (e) => e.op,
    );
    // two-phase: the graceful DELETE, then the status manager's final delete (grace 0), then REMOVE
    expect(ops).toEqual(['ADD', 'DELETE', 'DELETE', 'REMOVE']);
    const sources = new Set(
      (trace.since(0, (e) => e.type === 'loop.iteration') as TraceOf<'loop.iteration'>[]).map(
        (e) => e.source,
      ),
    );
    expect([...sources].sort()).toEqual(['config', 'housekeeping', 'pleg', 'sync']);

    await kl.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('skips iterations while the runtime status check has not completed, backing off 100 ms → 5 s', async () => {
    const { clock, runtime, kl, trace } = setup();
    runtime.failNext('Status', 'unavailable');
    runtime.failNext('Status', 'unavailable');
    kl.start();
    await clock.step(1_500);
    const skipped = trace.since(0, (e) => e.type === 'loop.skipped') as TraceOf<'loop.skipped'>[];
    expect(skipped.map((s) => s.backoffMs)).toEqual([100, 200, 400, 800, 1600]); // at 0, 100, 300, 700, 1500 ms
    expect(skipped[0]?.errors).toContain('container runtime status check may not have completed yet');
    await clock.step(10_000);
    expect(trace.since(0, (e) => e.type === 'loop.iteration').length).toBeGreaterThan(0);
    await kl.stop();
  });

  it('housekeeping kills orphaned runtime pods we own with grace 1, and never foreign ones', async () => {
    const { runtime, kl, trace, clock } = setup();
    runtime.addRunningPod('orphan', 'old', true);
    runtime.addRunningPod('foreign', 'theirs', false);
    await kl.handlePodCleanups();
    await clock.step(0);
    expect(runtime.calls).toContain('KillPod(1)');
    expect(runtime.pods.get('orphan')?.containers[0]?.state).toBe('exited');
    expect(runtime.pods.get('foreign')?.containers[0]?.state).toBe('running');
    const hk = trace.since(0, (e) => e.type === 'housekeeping') as TraceOf<'housekeeping'>[];
    expect(hk[0]?.orphansKilled).toBe(1);
  });

  it('housekeeping every 2 s forces the runtime cache fresh, so every run lists the running pods', async () => {
    const { runtime, kl, trace, clock } = setup();
    const getPods = runtime.getPods.bind(runtime);
    const listedAt: number[] = [];
    const t0 = clock.now();
    runtime.getPods = (all: boolean) => {
      if (!all) listedAt.push(clock.since(t0));
      return getPods(all);
    };
    kl.start();
    await clock.step(12_500);
    await kl.stop();
    const hk = trace.since(0, (e) => e.type === 'housekeeping');
    expect(hk).toHaveLength(6); // at 2, 4, ..., 12 s
    // HandlePodCleanups calls runtimeCache.ForceUpdateIfOlder(now): a stale list would show a pod that just
    // terminated as a running orphan
    expect(listedAt).toEqual([2_000, 4_000, 6_000, 8_000, 10_000, 12_000]);
  });

  it('syncLoopIteration handles one ready source at a time and returns null when none is ready', async () => {
    const { kl, pod } = setup();
    expect(await kl.syncLoopIteration()).toBe(null);
    kl.addPod(pod('u1', 'a'));
    kl.addPod(pod('u2', 'b'));
    expect(await kl.syncLoopIteration()).toBe('config');
    expect(kl.podManager.getPods()).toHaveLength(1);
    expect(await kl.syncLoopIteration()).toBe('config');
    expect(await kl.syncLoopIteration()).toBe(null);
  });
});
