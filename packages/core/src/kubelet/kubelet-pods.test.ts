/**
 * HandlePodCleanups (housekeeping) for each combination of where a pod is: in the config or removed, its
 * pod worker (none, syncing, terminating, terminated, finished), a running runtime pod with its UID (ours,
 * or not ours and never touched), a terminal pod with a deletionTimestamp. Built from the parts' own
 * constructors (PodManager, PodWorkers with a syncer that stops where the row says, StatusManager, the
 * in-memory runtime), not from the Kubelet.
 */
import { describe, expect, it } from 'vitest';
import type { PodPhase } from '../api/v1.ts';
import { rfc3339 } from '../api/v1.ts';
import { FakeClock } from '../clock/fake-clock.ts';
import { TraceRecorder } from '../events/recorder.ts';
import type { TraceOf, WorkerState } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import { PodManager } from './config/pod-manager.ts';
import { PodCache } from './container/cache.ts';
import { handlePodCleanups } from './kubelet-pods.ts';
import { type PodSyncer, PodWorkers, type SyncOutcome } from './pod-workers.ts';
import { StatusManager } from './status/status-manager.ts';
import { FakeRecorder, FakeRuntime } from './testing/fake-runtime.ts';
import { BasicWorkQueue } from './util/queue/work-queue.ts';

type Worker = 'none' | 'SyncPod' | 'TerminatingPod' | 'TerminatedPod' | 'Finished';

/** A syncer whose every call succeeds at once, except `hangAt`, which never returns (a slow kill). */
class StoppingSyncer implements PodSyncer {
  hangAt: string | undefined;
  private run(fn: string): Promise<SyncOutcome> {
    return fn === this.hangAt ? new Promise(() => {}) : Promise.resolve({});
  }
  syncPod() {
    return this.run('syncPod');
  }
  syncTerminatingPod() {
    return this.run('syncTerminatingPod');
  }
  syncTerminatingRuntimePod() {
    return this.run('syncTerminatingRuntimePod');
  }
  syncTerminatedPod() {
    return this.run('syncTerminatedPod');
  }
}

const UID = 'uid-x';

function mkPod(phase?: PodPhase, deleted = false): AdmittedPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      uid: UID,
      name: 'x',
      namespace: 'default',
      ...(deleted
        ? { deletionTimestamp: rfc3339(Date.UTC(2026, 0, 1)), deletionGracePeriodSeconds: 30 }
        : {}),
    },
    spec: { containers: [{ name: 'app', image: 'busybox' }], terminationGracePeriodSeconds: 30 },
    ...(phase ? { status: { phase } } : {}),
  };
}

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const podCache = new PodCache();
  const syncer = new StoppingSyncer();
  const podWorkers = new PodWorkers({
    syncer,
    workQueue: new BasicWorkQueue(clock),
    podCache,
    clock,
    trace,
    recorder: new FakeRecorder(),
    random: () => 0,
    config: {
      resyncIntervalMs: 60_000,
      backOffPeriodMs: 10_000,
      backOffOnTransientErrorPeriodMs: 1_000,
      jitterFactor: 0,
    },
  });
  // the PLEG's relist keeps the pod cache moving, so workers do not wait on it
  clock.setTicker(1_000, () => podCache.updateTime(clock.now()));
  podCache.updateTime(clock.now());
  const podManager = new PodManager();
  const statusManager = new StatusManager(clock, trace);
  const runtime = new FakeRuntime(clock);
  const probed: Set<string>[] = [];
  const deps = {
    podManager,
    podWorkers,
    statusManager,
    runtime,
    probeManager: { cleanupPods: (s: Set<string>) => probed.push(new Set(s)) },
    orphanKillGracePeriodSeconds: 1,
  };
  const lastState = () =>
    (trace.since(0, (e) => e.type === 'worker.state' && e.podUID === UID) as TraceOf<'worker.state'>[]).at(-1)
      ?.to;
  /** drives the worker of `pod` to `want` on the fake clock (its relists are what it waits on) */
  async function driveWorker(pod: AdmittedPod, want: Worker): Promise<void> {
    if (want === 'none') return;
    syncer.hangAt = {
      SyncPod: undefined,
      TerminatingPod: 'syncTerminatingPod',
      TerminatedPod: 'syncTerminatedPod',
      Finished: undefined,
    }[want];
    podWorkers.updatePod({ updateType: 'SyncPodCreate', pod });
    await clock.step(1_000);
    if (want !== 'SyncPod') {
      const deleted = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: rfc3339(clock.now()) } };
      podWorkers.updatePod({ updateType: 'SyncPodKill', pod: deleted });
    }
    for (let i = 0; i < 10 && lastState() !== (want as WorkerState); i++) await clock.step(1_000);
    expect(lastState()).toBe(want);
  }
  return { clock, trace, deps, probed, runtime, statusManager, driveWorker };
}

interface Row {
  name: string;
  /** the pod as the config has it, or undefined when it was removed */
  config: AdmittedPod | undefined;
  worker: Worker;
  runtime: 'none' | 'ours' | 'not ours';
  /** the status manager's phase for the pod, if it has an entry */
  status?: PodPhase;
  want: {
    /** updates the workers got for the pod, by type */
    updates: string[];
    forgotten: number;
    restarted: number;
    orphansKilled: number;
    /** whether probe workers may keep running for it */
    probed: boolean;
    /** whether its status entry is kept */
    statusKept: boolean;
    /** whether its worker is terminating afterwards */
    terminating?: boolean;
  };
}

const none = { updates: [], forgotten: 0, restarted: 0, orphansKilled: 0, probed: false, statusKept: true };

const rows: Row[] = [
  {
    name: 'in config, worker syncing, containers running: left alone',
    config: mkPod(),
    worker: 'SyncPod',
    runtime: 'ours',
    status: 'Running',
    want: { ...none, probed: true },
  },
  {
    name: 'in config, no worker (UID reused, or a restart): started again with a create',
    config: mkPod(),
    worker: 'none',
    runtime: 'none',
    status: 'Pending',
    want: { ...none, updates: ['SyncPodCreate'], restarted: 1 },
  },
  {
    name: 'in config, no worker, its containers still running: started again, not killed as an orphan',
    config: mkPod(),
    worker: 'none',
    runtime: 'ours',
    want: { ...none, updates: ['SyncPodCreate'], restarted: 1 },
  },
  {
    name: 'removed, worker finished: forgotten, its status dropped',
    config: undefined,
    worker: 'Finished',
    runtime: 'none',
    status: 'Failed',
    want: { ...none, forgotten: 1, statusKept: false },
  },
  {
    name: 'removed, worker terminating: kept until done, probes kept, its status dropped',
    config: undefined,
    worker: 'TerminatingPod',
    runtime: 'ours',
    status: 'Running',
    want: { ...none, probed: true, statusKept: false },
  },
  {
    name: 'removed while its worker still syncs: it starts terminating, probes kept, its status dropped',
    config: undefined,
    worker: 'SyncPod',
    runtime: 'ours',
    status: 'Running',
    want: { ...none, probed: true, statusKept: false, terminating: true },
  },
  {
    name: 'removed, worker terminated (cleanup in progress): kept, no probes, its status dropped',
    config: undefined,
    worker: 'TerminatedPod',
    runtime: 'none',
    status: 'Failed',
    want: { ...none, statusKept: false },
  },
  {
    name: 'not in config, no worker, a running runtime pod of ours: killed as an orphan (grace 1)',
    config: undefined,
    worker: 'none',
    runtime: 'ours',
    want: { ...none, updates: ['SyncPodKill'], orphansKilled: 1 },
  },
  {
    name: 'not in config, no worker, a running pod not ours: never touched',
    config: undefined,
    worker: 'none',
    runtime: 'not ours',
    want: none,
  },
  {
    name: 'Succeeded and deleted, unknown to the workers, nothing running: finalized with a kill',
    config: mkPod('Succeeded', true),
    worker: 'none',
    runtime: 'none',
    want: { ...none, updates: ['SyncPodKill'] },
  },
  {
    name: 'Failed as the status manager has it, deleted, unknown to the workers: finalized with a kill',
    config: mkPod('Running', true),
    worker: 'none',
    runtime: 'none',
    status: 'Failed',
    want: { ...none, updates: ['SyncPodKill'] },
  },
  {
    name: 'Succeeded and deleted, unknown to the workers, containers still running: killed as an orphan',
    config: mkPod('Succeeded', true),
    worker: 'none',
    runtime: 'ours',
    want: { ...none, updates: ['SyncPodKill'], orphansKilled: 1 },
  },
  {
    name: 'Succeeded, not deleted, unknown to the workers: neither restarted nor finalized',
    config: mkPod('Succeeded'),
    worker: 'none',
    runtime: 'none',
    want: none,
  },
];

describe('HandlePodCleanups', () => {
  it.each(rows)('$name', async ({ config, worker, runtime, status, want }) => {
    const { clock, trace, deps, probed, statusManager, driveWorker } = setup();
    const pod = config ?? mkPod();
    if (config) deps.podManager.addPod(config);
    await driveWorker(pod, worker);
    if (runtime !== 'none') deps.runtime.addRunningPod(UID, 'x', runtime === 'ours');
    if (status) statusManager.setPodStatus(pod, { phase: status });
    const from = trace.next - 1;

    const result = await handlePodCleanups(deps);
    await clock.step(0);

    const updates = (
      trace.since(from, (e) => e.type === 'worker.update' && e.podUID === UID) as TraceOf<'worker.update'>[]
    ).map((e) => e.updateType);
    expect(updates).toEqual(want.updates);
    expect(result).toEqual({
      forgotten: want.forgotten,
      restarted: want.restarted,
      orphansKilled: want.orphansKilled,
    });
    expect(probed.at(-1)?.has(UID) ?? false).toBe(want.probed);
    expect(statusManager.getPodStatus(UID) !== undefined).toBe(status !== undefined && want.statusKept);
    expect(deps.runtime.calls).toContain('GCBackoff');
    if (want.terminating) expect(deps.podWorkers.isPodTerminationRequested(UID)).toBe(true);
  });

  it('an orphan of ours is killed with the orphan grace period; a runtime that cannot list is reported', async () => {
    const { trace, deps } = setup();
    deps.runtime.addRunningPod(UID, 'x', true);
    const from = trace.next - 1;
    await handlePodCleanups({ ...deps, orphanKillGracePeriodSeconds: 1 });
    const kill = trace.since(from, (e) => e.type === 'worker.update') as TraceOf<'worker.update'>[];
    expect(kill.map((e) => [e.updateType, e.gracePeriodS])).toEqual([['SyncPodKill', 1]]);

    deps.runtime.failNext('GetPods', 'connection refused');
    const r = await handlePodCleanups(deps);
    expect(r.error).toBe('Error listing containers: connection refused');
  });
});
