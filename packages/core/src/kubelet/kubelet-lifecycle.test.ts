import { describe, expect, it } from 'vitest';
import { type Pod, rfc3339 } from '../api/v1.ts';
import { FakeClock } from '../clock/fake-clock.ts';
import type { CriRuntime } from '../cri/types.ts';
import { TraceRecorder } from '../events/recorder.ts';
import type { TraceOf } from '../events/trace.ts';
import { DeadlineExceededMessage } from './active-deadline.ts';
import { Kubelet } from './kubelet.ts';
import { FakeRecorder, FakeRuntime } from './testing/fake-runtime.ts';
import { kubeletHarness } from './testing/kubelet-harness.ts';

describe('active deadline', () => {
  it('fails the pod with DeadlineExceeded once activeDeadlineSeconds passed, and terminates it', async () => {
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock);
    const runtime = new FakeRuntime(clock);
    const recorder = new FakeRecorder();
    const kl = new Kubelet(
      { cri: {} as CriRuntime, clock, trace, runtimeEndpoint: 'fake', simulated: true, random: () => 0 },
      { runtime, recorder },
    );
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { uid: 'u1', name: 'job', namespace: 'default', creationTimestamp: rfc3339(clock.now()) },
      spec: {
        containers: [{ name: 'app', image: 'busybox' }],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 30,
        activeDeadlineSeconds: 5,
      },
    };
    kl.start();
    kl.addPod(pod);
    const phase = () => kl.getPodByUID('u1')?.status?.phase;
    expect(await clock.stepUntil(() => phase() === 'Running', 3_000)).toBe(true);
    const started = clock.now();
    expect(await clock.stepUntil(() => phase() === 'Failed', 10_000)).toBe(true);
    expect(clock.now() - started).toBeGreaterThanOrEqual(3_000);
    const st = kl.getPodByUID('u1')?.status;
    expect([st?.reason, st?.message]).toEqual(['DeadlineExceeded', DeadlineExceededMessage]);
    expect(recorder.events.some((e) => e.reason === 'DeadlineExceeded' && e.type === 'Normal')).toBe(true);

    expect(await clock.stepUntil(() => kl.podWorkers.stateOf('u1') === 'Finished', 10_000)).toBe(true);
    expect(runtime.calls).toContain('KillPod()'); // no override: the runtime uses the spec's 30 s
    expect(runtime.pods.get('u1')?.containers.every((c) => c.state === 'exited')).toBe(true);
    const states = (trace.since(0, (e) => e.type === 'worker.state') as TraceOf<'worker.state'>[]).map(
      (e) => e.to,
    );
    expect(states).toEqual(['SyncPod', 'TerminatingPod', 'TerminatedPod', 'Finished']);
    await kl.stop();
  });
});

describe('ContainerDied cleanup (pod container deletor)', () => {
  it('keeps only the newest exited instance of a crash-looping container', async () => {
    const h = kubeletHarness();
    h.kl.start();
    h.kl.addPod(h.pod('crash', [h.container('app')]));
    const running = () => h.status('uid-crash', 'app')?.state.running !== undefined;
    expect(await h.clock.stepUntil(running, 10_000)).toBe(true);
    const [first] = h.instances('app') as [string];
    h.cri.exit(first, 1);
    // first crash: restarted at once, nothing to remove (one exited instance)
    expect(await h.clock.stepUntil(() => h.instances('app').length === 2 && running(), 10_000)).toBe(true);
    expect(h.cri.called).not.toContain('RemoveContainer');
    const second = h.instances('app')[1] as string;
    h.cri.exit(second, 1);
    expect(await h.clock.stepUntil(() => !h.cri.containers.has(first), 5_000)).toBe(true);
    expect(h.instances('app')).toEqual([second]);
    const removals = h.traced('runtime.call').filter((c) => c.method === 'RemoveContainer');
    expect(removals.map((r) => r.container)).toEqual(['app']);
    await h.kl.stop();
  });
});

describe('grace period shortened while the kill waits', () => {
  it('abandons StopContainer(30) and re-issues it with the shorter grace', async () => {
    const h = kubeletHarness();
    const stops: number[] = [];
    const stop = h.cri.stopContainer.bind(h.cri);
    h.cri.stopContainer = async (id: string, timeout: number) => {
      stops.push(timeout);
      await h.clock.sleep(timeout * 1000); // the container ignores SIGTERM
      return stop(id, timeout);
    };
    h.kl.start();
    h.kl.addPod(h.pod('slow', [h.container('app')]));
    expect(
      await h.clock.stepUntil(() => h.status('uid-slow', 'app')?.state.running !== undefined, 10_000),
    ).toBe(true);
    h.kl.deletePod('uid-slow', 30);
    expect(await h.clock.stepUntil(() => stops.length === 1, 5_000)).toBe(true);
    await h.clock.step(2_000);
    h.kl.deletePod('uid-slow', 5);
    const t0 = h.clock.now();
    expect(await h.clock.stepUntil(() => h.kl.getPodByUID('uid-slow') === undefined, 20_000)).toBe(true);
    expect(stops).toEqual([30, 5]);
    expect(h.clock.now() - t0).toBeLessThan(10_000);
    const results = h.traced('sync.result').filter((r) => r.workType === 'TerminatingPod');
    expect(results[0]?.error).toBe('context canceled');
    expect(results.at(-1)?.error).toBeUndefined();
    await h.kl.stop();
  });
});
