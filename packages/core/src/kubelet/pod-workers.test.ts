import { describe, expect, it } from 'vitest';
import { abortError } from '../clock/clock.ts';
import { FakeClock } from '../clock/fake-clock.ts';
import { TraceRecorder } from '../events/recorder.ts';
import type { TraceOf } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import { PodCache } from './container/cache.ts';
import type { PodStatusRT, RuntimePod } from './container/runtime.ts';
import { calculateEffectiveGracePeriod, PodSyncStatus } from './pod-sync-status.ts';
import { type PodSyncer, PodWorkers, type SyncOutcome } from './pod-workers.ts';
import { FakeRecorder } from './testing/fake-runtime.ts';
import { BasicWorkQueue } from './util/queue/work-queue.ts';

type Call = { fn: string; uid: string; grace?: number; updateType?: string };

class FakeSyncer implements PodSyncer {
  calls: Call[] = [];
  /** per call: resolve it by hand when set */
  gate: Promise<void> | undefined;
  terminal = false;
  error: string | undefined;
  private async run(c: Call, signal?: AbortSignal): Promise<SyncOutcome> {
    this.calls.push(c);
    if (this.gate) await this.gate;
    // like a CRI call made with the sync's context
    if (signal?.aborted) throw abortError();
    if (this.error) throw new Error(this.error);
    return {};
  }
  async syncPod(_s: AbortSignal, updateType: string, pod: AdmittedPod): Promise<SyncOutcome> {
    await this.run({ fn: 'syncPod', uid: pod.metadata.uid, updateType });
    return { isTerminal: this.terminal };
  }
  syncTerminatingPod(s: AbortSignal, pod: AdmittedPod, _st: PodStatusRT, grace: number | undefined) {
    return this.run(
      {
        fn: 'syncTerminatingPod',
        uid: pod.metadata.uid,
        ...(grace !== undefined ? { grace } : {}),
      },
      s,
    );
  }
  syncTerminatingRuntimePod(_s: AbortSignal, rp: RuntimePod) {
    return this.run({ fn: 'syncTerminatingRuntimePod', uid: rp.id });
  }
  syncTerminatedPod(_s: AbortSignal, pod: AdmittedPod) {
    return this.run({ fn: 'syncTerminatedPod', uid: pod.metadata.uid });
  }
}

function mkPod(uid: string, extra: Partial<AdmittedPod['metadata']> = {}, grace = 30): AdmittedPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid, name: `pod-${uid}`, namespace: 'default', ...extra },
    spec: { containers: [{ name: 'app', image: 'busybox' }], terminationGracePeriodSeconds: grace },
  };
}

function setup(random = () => 0) {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const cache = new PodCache();
  const workQueue = new BasicWorkQueue(clock);
  const syncer = new FakeSyncer();
  const workers = new PodWorkers({
    syncer,
    workQueue,
    podCache: cache,
    clock,
    trace,
    recorder: new FakeRecorder(),
    random,
    config: {
      resyncIntervalMs: 60_000,
      backOffPeriodMs: 10_000,
      backOffOnTransientErrorPeriodMs: 1_000,
      jitterFactor: 0.5,
    },
  });
  // a relist every second keeps getNewerThan moving, as the PLEG does
  const relist = () => cache.updateTime(clock.now());
  clock.setTicker(1000, relist);
  relist();
  const states = (uid: string) =>
    (trace.since(0, (e) => e.type === 'worker.state' && e.podUID === uid) as TraceOf<'worker.state'>[]).map(
      (e) => e.to,
    );
  return { clock, trace, cache, workQueue, syncer, workers, states };
}

describe('PodWorkers lifecycle', () => {
  it('SyncPod → TerminatingPod → TerminatedPod → Finished → Forgotten, traced in order', async () => {
    const { clock, syncer, workers, states } = setup();
    const pod = mkPod('a');
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(0);
    expect(syncer.calls).toEqual([{ fn: 'syncPod', uid: 'a', updateType: 'SyncPodCreate' }]);

    const deleted = mkPod('a', { deletionTimestamp: '2026-01-01T12:00:30Z', deletionGracePeriodSeconds: 30 });
    workers.updatePod({ updateType: 'SyncPodUpdate', pod: deleted });
    expect(workers.isPodTerminationRequested('a')).toBe(true);
    await clock.step(3_000);
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    expect(syncer.calls[1]?.grace).toBe(30);
    expect(workers.shouldPodBeFinished('a')).toBe(true);
    expect(workers.shouldPodContentBeRemoved('a')).toBe(true);

    // still desired: kept; gone from config: forgotten
    expect(workers.syncKnownPods([deleted]).has('a')).toBe(true);
    expect(workers.syncKnownPods([]).has('a')).toBe(false);
    expect(states('a')).toEqual(['SyncPod', 'TerminatingPod', 'TerminatedPod', 'Finished', 'Forgotten']);
  });

  it("an update of a terminating pod shows its grace: the DELETE's own, marked when it overrides the spec's", async () => {
    const { clock, trace, workers } = setup();
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('b') });
    await clock.step(0);
    const at = '2026-01-01T12:00:30Z';
    workers.updatePod({
      updateType: 'SyncPodKill',
      pod: mkPod('a', { deletionTimestamp: at, deletionGracePeriodSeconds: 5 }),
    });
    workers.updatePod({
      updateType: 'SyncPodKill',
      pod: mkPod('b', { deletionTimestamp: at, deletionGracePeriodSeconds: 30 }),
    });
    const kills = trace.since(
      0,
      (e) => e.type === 'worker.update' && e.updateType === 'SyncPodKill',
    ) as TraceOf<'worker.update'>[];
    expect(kills.map((e) => [e.podUID, e.gracePeriodS, e.override])).toEqual([
      ['a', 5, true],
      ['b', 30, undefined],
    ]);
    // an update of a pod that is not terminating carries no grace
    const creates = trace.since(0, (e) => e.type === 'worker.update' && e.updateType === 'SyncPodCreate');
    expect(creates.every((e) => !('gracePeriodS' in e))).toBe(true);
  });

  it('waits for a cache newer than its previous sync before syncing again', async () => {
    const { clock, syncer, workers } = setup();
    const pod = mkPod('a');
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(0);
    workers.updatePod({ updateType: 'SyncPodSync', pod });
    await clock.step(999);
    expect(syncer.calls).toHaveLength(1);
    await clock.step(1);
    expect(syncer.calls).toHaveLength(2);
  });

  it('a terminal pod drives itself to termination (isTerminal → TerminatingPod at once)', async () => {
    const { clock, syncer, workers } = setup();
    syncer.terminal = true;
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    await clock.step(3_000);
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    expect(workers.stateOf('a')).toBe('Finished');
  });
});

describe('PodWorkers.updatePod rules', () => {
  it('coalesces: only the newest pending update runs, and the trace says so', async () => {
    const { clock, syncer, workers, trace } = setup();
    let open!: () => void;
    syncer.gate = new Promise((r) => (open = r));
    const pod = mkPod('a');
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(0);
    workers.updatePod({ updateType: 'SyncPodUpdate', pod });
    workers.updatePod({ updateType: 'SyncPodSync', pod });
    syncer.gate = undefined;
    open();
    await clock.step(1_000);
    expect(syncer.calls.map((c) => c.updateType)).toEqual(['SyncPodCreate', 'SyncPodSync']);
    const ups = trace.since(0, (e) => e.type === 'worker.update') as TraceOf<'worker.update'>[];
    expect(ups.map((u) => [u.updateType, u.coalesced])).toEqual([
      ['SyncPodCreate', false],
      ['SyncPodUpdate', false],
      ['SyncPodSync', true],
    ]);
  });

  it('grace period only shrinks while terminating', async () => {
    const { clock, syncer, workers } = setup();
    let open!: () => void;
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    await clock.step(0);
    syncer.gate = new Promise((r) => (open = r));
    workers.updatePod({
      updateType: 'SyncPodKill',
      pod: mkPod('a'),
      killPodOptions: { podTerminationGracePeriodSecondsOverride: 20 },
    });
    await clock.step(1_000);
    expect(workers.statusOf('a')?.gracePeriod).toBe(20);
    workers.updatePod({
      updateType: 'SyncPodKill',
      pod: mkPod('a'),
      killPodOptions: { podTerminationGracePeriodSecondsOverride: 25 },
    });
    expect(workers.statusOf('a')?.gracePeriod).toBe(20);
    workers.updatePod({
      updateType: 'SyncPodKill',
      pod: mkPod('a'),
      killPodOptions: { podTerminationGracePeriodSecondsOverride: 5 },
    });
    expect(workers.statusOf('a')?.gracePeriod).toBe(5);
    syncer.gate = undefined;
    open();
    await clock.step(2_000);
    expect(syncer.calls.filter((c) => c.fn === 'syncTerminatingPod').map((c) => c.grace)).toEqual([20, 5]);
  });

  it('an update while terminating stays a termination (no syncPod)', async () => {
    const { clock, syncer, workers } = setup();
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    await clock.step(0);
    let open!: () => void;
    syncer.gate = new Promise((r) => (open = r));
    workers.updatePod({ updateType: 'SyncPodKill', pod: mkPod('a') });
    await clock.step(1_000);
    workers.updatePod({ updateType: 'SyncPodUpdate', pod: mkPod('a') });
    syncer.gate = undefined;
    open();
    await clock.step(3_000);
    // the update is folded into the termination; the next work is SyncTerminatedPod
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
  });

  it('a create for the same UID while terminating is dropped, then restarted fresh after forgetting', async () => {
    const { clock, syncer, workers, trace } = setup();
    const pod = mkPod('a');
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(0);
    workers.updatePod({ updateType: 'SyncPodKill', pod });
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    expect(workers.statusOf('a')?.restartRequested).toBe(true);
    const dropped = trace.since(0, (e) => e.type === 'worker.update' && e.dropped !== undefined);
    expect(dropped).toHaveLength(1);
    await clock.step(3_000);
    expect(workers.stateOf('a')).toBe('Finished');
    // still desired, but restart requested and finished: forgotten so a Create can start it again
    expect(workers.syncKnownPods([pod]).has('a')).toBe(false);
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(1_000);
    expect(syncer.calls.map((c) => c.fn)).toEqual([
      'syncPod',
      'syncTerminatingPod',
      'syncTerminatedPod',
      'syncPod',
    ]);
  });

  it('runtime-only pods can only be killed; killed with the override and forgotten at once', async () => {
    const { clock, syncer, workers, states } = setup();
    const rp: RuntimePod = {
      id: 'orphan',
      name: 'x',
      namespace: 'default',
      createdAt: 0,
      containers: [],
      sandboxes: [],
      managed: true,
    };
    workers.updatePod({ updateType: 'SyncPodSync', runningPod: rp });
    expect(workers.size).toBe(0);
    workers.updatePod({
      updateType: 'SyncPodKill',
      runningPod: rp,
      killPodOptions: { podTerminationGracePeriodSecondsOverride: 1 },
    });
    await clock.step(0);
    expect(syncer.calls).toEqual([{ fn: 'syncTerminatingRuntimePod', uid: 'orphan' }]);
    expect(workers.size).toBe(0);
    expect(states('orphan')).toEqual(['TerminatingPod', 'Forgotten']);
  });

  it('its queries answer on their own, detached from the workers (housekeeping and the prober pass them on)', async () => {
    const { clock, workers } = setup();
    const { isPodTerminationRequested, couldHaveRunningContainers, stateOf } = workers;
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    await clock.step(0);
    expect(stateOf('a')).toBe('SyncPod');
    expect(isPodTerminationRequested('a')).toBe(false);
    workers.updatePod({ updateType: 'SyncPodKill', pod: mkPod('a') });
    expect(isPodTerminationRequested('a')).toBe(true);
    expect(couldHaveRunningContainers('a')).toBe(true);
    expect(workers.queries.isPodTerminationRequested('a')).toBe(true);
  });

  it('a started pod that is no longer desired is terminated by syncKnownPods', async () => {
    const { clock, syncer, workers } = setup();
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('b') });
    await clock.step(0);
    workers.syncKnownPods([]);
    await clock.step(3_000);
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    // the grace period is recorded from the last active pod; the requeued update carries no override
    expect(workers.statusOf('b')?.gracePeriod).toBe(30);
    expect(workers.statusOf('b')?.deleted).toBe(true);
  });

  it('an orphan that never started is forgotten without running anything', async () => {
    const { syncer, workers, states } = setup();
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('c') });
    workers.syncKnownPods([]);
    expect(workers.size).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(syncer.calls).toEqual([]);
    expect(states('c')).toEqual(['SyncPod', 'Forgotten']);
  });
});

describe('requeue policy', () => {
  const due = (w: BasicWorkQueue, uid: string, clock: FakeClock) => (w.dueAt(uid) as number) - clock.now();

  it('success → jitter(60 s); error → jitter(10 s); network not ready → jitter(1 s), with the injected random', async () => {
    const { clock, syncer, workers, workQueue, trace } = setup(() => 0.5);
    const pod = mkPod('a');
    workers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(0);
    expect(due(workQueue, 'a', clock)).toBe(75_000);

    syncer.error = 'failed to SyncPod: boom';
    workers.updatePod({ updateType: 'SyncPodSync', pod });
    await clock.step(1_000);
    expect(due(workQueue, 'a', clock)).toBe(12_500);

    syncer.error = 'network is not ready: container runtime network not ready';
    workers.updatePod({ updateType: 'SyncPodSync', pod });
    await clock.step(1_000);
    expect(due(workQueue, 'a', clock)).toBe(1_250);

    const results = trace.since(0, (e) => e.type === 'sync.result') as TraceOf<'sync.result'>[];
    expect(results.map((r) => r.requeueAfterMs)).toEqual([75_000, 12_500, 1_250]);
    expect(results[1]?.error).toBe('failed to SyncPod: boom');
  });

  it('a phase transition requeues at 0', async () => {
    const { clock, syncer, workers, workQueue, trace } = setup(() => 0.99);
    syncer.terminal = true;
    workers.updatePod({ updateType: 'SyncPodCreate', pod: mkPod('a') });
    await clock.step(0);
    const first = trace.since(0, (e) => e.type === 'sync.result')[0] as TraceOf<'sync.result'>;
    expect(first.isTerminal).toBe(true);
    expect(first.requeueAfterMs).toBe(0);
    expect(workQueue.dueAt('a')).toBeDefined();
  });
});

describe('calculateEffectiveGracePeriod', () => {
  const cases: [string, Partial<AdmittedPod['metadata']>, number | undefined, number][] = [
    ['spec only', {}, undefined, 30],
    ['deletion grace', { deletionGracePeriodSeconds: 5 }, undefined, 5],
    ['override below deletion', { deletionGracePeriodSeconds: 5 }, 2, 2],
    ['deletion grace 0 → 1', { deletionGracePeriodSeconds: 0 }, undefined, 1],
    ['override 0 → 1', {}, 0, 1],
  ];
  for (const [name, meta, override, want] of cases) {
    it(name, () => {
      const st = new PodSyncStatus({ podUID: 'a', pod: 'default/a' }, 'a_default', 0);
      const [grace] = calculateEffectiveGracePeriod(
        st,
        mkPod('a', meta),
        override === undefined ? undefined : { podTerminationGracePeriodSecondsOverride: override },
      );
      expect(grace).toBe(want);
    });
  }
});
