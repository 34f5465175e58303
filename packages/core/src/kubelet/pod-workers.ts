import type { SyncAction } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodStatusRT, RuntimePod } from './container/runtime.ts';
import { DefaultTerminationGracePeriodSeconds } from './kuberuntime/labels.ts';
import { isTerminalPhase, podFullName, podRef } from './pod-ref.ts';
import {
  calculateEffectiveGracePeriod,
  PodSyncStatus,
  type PodWork,
  runningPodToAPIPod,
  type UpdatePodOptions,
} from './pod-sync-status.ts';
import {
  dispatchWork,
  isPodStatusCacheTerminal,
  NetworkNotReadyErrorMsg,
  PodSyncError,
  type SyncOutcome,
} from './pod-syncer.ts';
import {
  type PodWorkerSync,
  type PodWorkersDeps,
  PodWorkersQueries,
  type PodWorkersState,
  WorkerStateNotes,
} from './pod-workers-queries.ts';
import { Channel } from './util/channel.ts';
import { jitter } from './util/jitter.ts';

export {
  NetworkNotReadyErrorMsg,
  PodSyncError,
  type PodSyncer,
  type SyncOutcome,
} from './pod-syncer.ts';

export type { PodWorkerSync, PodWorkersDeps } from './pod-workers-queries.ts';

/**
 * PodWorkers (pod_workers.go): one serial worker per pod UID that drives the pod through its lifecycle.
 *
 *   updatePod(...)      any loop may call it; never blocks. The newest update replaces a pending one
 *                       (coalescing), so a worker always acts on the latest desired state.
 *   the worker          waits until the pod cache is newer than its previous sync, then runs exactly one of
 *                       syncPod / syncTerminatingPod / syncTerminatingRuntimePod / syncTerminatedPod.
 *   syncKnownPods(...)  housekeeping: forget finished workers of pods no longer desired; orphaned but
 *                       running pods start terminating.
 *
 * Which predicate holds when:
 *   |<- SyncPod ->|<- TerminatingPod ->|<- TerminatedPod ->| finished | forgotten
 *                 |------------------------------------------------------ isPodTerminationRequested
 *                                      |------------------------------- isPodKnownTerminated
 *                                                         |------------ shouldPodBeFinished
 */
export class PodWorkers {
  private readonly podUpdates = new Map<string, Channel<true>>();
  private readonly state: PodWorkersState = { podSyncStatuses: new Map(), podsSynced: false };
  private readonly podSyncStatuses = this.state.podSyncStatuses;
  /** the query part over the same records; its methods are this object's query methods below */
  readonly queries = new PodWorkersQueries(this.state);
  private readonly notes: WorkerStateNotes;
  /** resolves when every worker is idle (tests) */
  private idleWaiters: (() => void)[] = [];

  readonly isPodKnownTerminated = this.queries.isPodKnownTerminated;
  readonly couldHaveRunningContainers = this.queries.couldHaveRunningContainers;
  readonly shouldPodBeFinished = this.queries.shouldPodBeFinished;
  readonly isPodTerminationRequested = this.queries.isPodTerminationRequested;
  readonly shouldPodContainersBeTerminating = this.queries.shouldPodContainersBeTerminating;
  readonly shouldPodRuntimeBeRemoved = this.queries.shouldPodRuntimeBeRemoved;
  readonly shouldPodContentBeRemoved = this.queries.shouldPodContentBeRemoved;
  readonly stateOf = this.queries.stateOf;
  readonly statusOf = this.queries.statusOf;

  constructor(private readonly deps: PodWorkersDeps) {
    this.notes = new WorkerStateNotes(this.state, deps.trace);
  }

  /** How many UIDs the workers track. */
  get size(): number {
    return this.podSyncStatuses.size;
  }

  updatePod(input: UpdatePodOptions): void {
    const options: UpdatePodOptions = { ...input };
    const { clock, trace } = this.deps;
    let isRuntimePod = false;
    let uid: string;
    let ref: { podUID: string; pod: string };
    let fullname: string;
    if (options.runningPod && !options.pod) {
      const rp = options.runningPod;
      ref = { podUID: rp.id, pod: `${rp.namespace}/${rp.name}` };
      if (options.updateType !== 'SyncPodKill') {
        trace.record({
          type: 'worker.update',
          ...ref,
          updateType: options.updateType,
          coalesced: false,
          dropped: 'runtime pods can only be killed',
        });
        return;
      }
      uid = rp.id;
      fullname = `${rp.name}_${rp.namespace}`;
      isRuntimePod = true;
    } else {
      delete options.runningPod;
      const p = options.pod as AdmittedPod;
      uid = p.metadata.uid;
      ref = podRef(p);
      fullname = podFullName(p);
    }

    const now = clock.now();
    let firstTime = false;
    let status = this.podSyncStatuses.get(uid);
    if (!status) {
      firstTime = true;
      status = new PodSyncStatus(ref, fullname, now);
      // a terminal pod with nothing left in the runtime (e.g. after a restart) only needs SyncTerminatedPod
      if (options.pod && isTerminalPhase(options.pod.status?.phase)) {
        const cached = this.deps.podCache.get(uid);
        if (!cached.error && isPodStatusCacheTerminal(cached.status)) {
          status.terminatingAt = now;
          status.terminatedAt = now;
          status.startedTerminating = true;
        }
      }
      this.podSyncStatuses.set(uid, status);
    }

    let pod: AdmittedPod;
    if (isRuntimePod) {
      status.observedRuntime = true;
      const known = status.pendingUpdate?.pod ?? status.activeUpdate?.pod;
      if (known) {
        pod = known;
        options.pod = known;
        delete options.runningPod;
      } else pod = runningPodToAPIPod(options.runningPod as RuntimePod);
    } else pod = options.pod as AdmittedPod;

    const drop = (why: string) => {
      trace.record({
        type: 'worker.update',
        ...ref,
        updateType: options.updateType,
        coalesced: false,
        dropped: why,
      });
      this.notes.note(uid);
    };
    if (!firstTime && status.isTerminationRequested() && options.updateType === 'SyncPodCreate') {
      status.restartRequested = true;
      drop('pod is terminating; restart with the same UID requested');
      return;
    }
    if (status.isFinished()) {
      drop('pod is finished; no further updates until forgotten');
      return;
    }

    let becameTerminating = false;
    if (!status.isTerminationRequested()) {
      if (isRuntimePod) {
        status.deleted = true;
        becameTerminating = true;
      } else if (pod.metadata.deletionTimestamp) {
        status.deleted = true;
        becameTerminating = true;
      } else if (isTerminalPhase(pod.status?.phase)) {
        becameTerminating = true;
      } else if (options.updateType === 'SyncPodKill') {
        if (options.killPodOptions?.evict) status.evicted = true;
        becameTerminating = true;
      }
      if (becameTerminating) status.terminatingAt = now;
    }

    let wasGracePeriodShortened = false;
    let graceShown: { gracePeriodS: number; override?: true } | undefined;
    if (status.isTerminated()) {
      if (isRuntimePod) {
        drop('pod is waiting for termination; runtime-only kill ignored');
        return;
      }
      options.killPodOptions?.completed?.();
      delete options.killPodOptions;
    } else if (status.isTerminationRequested()) {
      const kill = { ...(options.killPodOptions ?? {}) };
      if (kill.completed) status.notifyPostTerminating.push(kill.completed);
      if (kill.podStatusFunc) status.statusPostTerminating.push(kill.podStatusFunc);
      const [grace, shortened] = calculateEffectiveGracePeriod(status, pod, kill);
      wasGracePeriodShortened = shortened;
      status.gracePeriod = grace;
      kill.podTerminationGracePeriodSecondsOverride = grace;
      options.killPodOptions = kill;
      const specGrace = pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds;
      graceShown = { gracePeriodS: grace, ...(grace !== specGrace ? { override: true as const } : {}) };
    } else if (options.killPodOptions) {
      options.killPodOptions.completed?.();
      delete options.killPodOptions;
    }

    let updates = this.podUpdates.get(uid);
    if (!updates) {
      updates = new Channel<true>(1);
      this.podUpdates.set(uid, updates);
      void this.podWorkerLoop(uid, updates);
    }

    const coalesced = status.pendingUpdate !== undefined;
    const prevStart = status.pendingUpdate?.startTime;
    if (prevStart !== undefined && (options.startTime === undefined || prevStart < options.startTime)) {
      options.startTime = prevStart;
    }
    status.pendingUpdate = options;
    status.working = true;
    trace.record({ type: 'worker.update', ...ref, updateType: options.updateType, coalesced, ...graceShown });
    updates.trySend(true);
    this.notes.note(uid);

    if ((becameTerminating || wasGracePeriodShortened) && status.abort) status.abort.abort();
  }

  // ---- the worker ----------------------------------------------------------------------------------

  private async podWorkerLoop(uid: string, updates: Channel<true>): Promise<void> {
    let lastSyncTime = 0;
    const { clock, trace } = this.deps;
    for (;;) {
      if ((await updates.receive()) === undefined) return;
      const started = this.startPodSync(uid);
      if (!started) continue;
      const { signal, work, status } = started;
      const opts = work.options;
      let outcome: SyncOutcome = {};
      let err: Error | undefined;
      let t0 = clock.now();
      try {
        let podStatus: PodStatusRT | undefined;
        if (!opts.runningPod) {
          const entry = await this.deps.podCache.getNewerThan(uid, lastSyncTime);
          if (entry.error) {
            this.deps.recorder.event(
              opts.pod as AdmittedPod,
              'Warning',
              'FailedSync',
              `error determining status: ${entry.error.message}`,
            );
            throw entry.error;
          }
          podStatus = entry.status;
        }
        t0 = clock.now();
        trace.record({
          type: 'sync.start',
          ...status.ref,
          workType: work.workType,
          updateType: opts.updateType,
        });
        try {
          outcome = await dispatchWork(this.deps.syncer, signal, work, status, podStatus as PodStatusRT);
        } finally {
          lastSyncTime = clock.now();
        }
      } catch (e) {
        err = e instanceof Error ? e : new Error(String(e));
      }
      const canceled = err?.name === 'AbortError';
      let phaseTransition = false;
      let requeueAfterMs: number | undefined;
      let exit = false;
      if (!err && work.workType === 'TerminatedPod') {
        this.completeTerminated(uid);
        exit = true;
      } else if (!err && work.workType === 'TerminatingPod') {
        if (opts.runningPod) {
          this.completeTerminatingRuntimePod(uid);
          exit = true;
        } else {
          this.completeTerminating(uid);
          phaseTransition = true;
        }
      } else if (!err && outcome.isTerminal) {
        this.completeSync(uid);
        phaseTransition = true;
      }
      if (!exit) requeueAfterMs = this.completeWork(uid, phaseTransition, err);
      const actions: SyncAction[] =
        outcome.result?.actions ?? (err instanceof PodSyncError ? (err.result?.actions ?? []) : []);
      const plan = outcome.result?.plan ?? (err instanceof PodSyncError ? err.result?.plan : undefined);
      trace.record({
        type: 'sync.result',
        ...status.ref,
        workType: work.workType,
        actions,
        durationMs: clock.since(t0),
        ...(err ? { error: canceled ? 'context canceled' : err.message } : {}),
        ...(plan ? { plan } : {}),
        ...(work.workType === 'SyncPod' ? { isTerminal: outcome.isTerminal ?? false } : {}),
        ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
      });
      this.notes.note(uid);
      if (exit && work.workType === 'TerminatedPod') this.deps.onPodFinished?.(uid);
      this.checkIdle();
      if (exit) return;
    }
  }

  /** Consumes the pending update; undefined when there is nothing to do. */
  private startPodSync(
    uid: string,
  ): { signal: AbortSignal; work: PodWork; status: PodSyncStatus } | undefined {
    const status = this.podSyncStatuses.get(uid);
    if (!status?.pendingUpdate) return undefined;
    const options = status.pendingUpdate;
    status.pendingUpdate = undefined;
    const work: PodWork = { workType: status.workType(), options };
    if (!status.abort || status.abort.signal.aborted) status.abort = new AbortController();
    const signal = status.abort.signal;
    // non-static pods may always start; a runtime-only pod may "start" only to be torn down
    if (!status.isStarted() && !(options.runningPod && work.workType === 'TerminatingPod')) {
      status.startedAt = this.deps.clock.now();
    }
    status.mergeLastUpdate(options);
    return { signal, work, status };
  }

  /** SyncPod reported the pod terminal: move to terminating and run again at once. */
  private completeSync(uid: string): void {
    const status = this.podSyncStatuses.get(uid);
    if (!status) return;
    if (status.terminatingAt === 0) status.terminatingAt = this.deps.clock.now();
    status.startedTerminating = true;
    this.requeueLastPodUpdate(uid, status);
  }

  private completeTerminating(uid: string): void {
    const status = this.podSyncStatuses.get(uid);
    if (!status) return;
    status.terminatedAt = this.deps.clock.now();
    for (const fn of status.notifyPostTerminating) fn();
    status.notifyPostTerminating = [];
    status.statusPostTerminating = [];
    this.requeueLastPodUpdate(uid, status);
  }

  /** A runtime-only pod is done once killed: its history goes at once. */
  private completeTerminatingRuntimePod(uid: string): void {
    const status = this.podSyncStatuses.get(uid);
    if (status) {
      status.terminatedAt = this.deps.clock.now();
      status.finished = true;
      status.working = false;
      this.podSyncStatuses.delete(uid);
    }
    this.cleanupPodUpdates(uid);
  }

  private completeTerminated(uid: string): void {
    this.cleanupPodUpdates(uid);
    const status = this.podSyncStatuses.get(uid);
    if (!status) return;
    const now = this.deps.clock.now();
    if (status.terminatingAt === 0) status.terminatingAt = now;
    if (status.terminatedAt === 0) status.terminatedAt = now;
    status.finished = true;
    status.working = false;
  }

  /** Requeue policy; returns the delay it chose. */
  private completeWork(uid: string, phaseTransition: boolean, err: Error | undefined): number {
    const { config, random, workQueue } = this.deps;
    let delay: number;
    if (phaseTransition) delay = 0;
    else if (!err) delay = jitter(config.resyncIntervalMs, config.jitterFactor, random);
    else if (err.message.includes(NetworkNotReadyErrorMsg)) {
      delay = jitter(config.backOffOnTransientErrorPeriodMs, config.jitterFactor, random);
    } else delay = jitter(config.backOffPeriodMs, config.jitterFactor, random);
    workQueue.enqueue(uid, delay);
    const status = this.podSyncStatuses.get(uid);
    if (status) {
      if (status.pendingUpdate) this.podUpdates.get(uid)?.trySend(true);
      else status.working = false;
    }
    return delay;
  }

  private requeueLastPodUpdate(uid: string, status: PodSyncStatus): void {
    if (status.pendingUpdate || !status.activeUpdate) return;
    status.pendingUpdate = { ...status.activeUpdate };
    status.working = true;
    this.podUpdates.get(uid)?.trySend(true);
  }

  private cleanupPodUpdates(uid: string): void {
    this.podUpdates.get(uid)?.close();
    this.podUpdates.delete(uid);
  }

  // ---- housekeeping ---------------------------------------------------------------------------------

  /**
   * SyncKnownPods: called by housekeeping with every desired pod. Forgets finished workers of pods that are
   * no longer desired (or whose UID was re-created), pushes orphaned running pods into termination, and
   * returns what it still tracks.
   */
  syncKnownPods(desiredPods: readonly AdmittedPod[]): Map<string, PodWorkerSync> {
    const known = new Set(desiredPods.map((p) => p.metadata.uid));
    this.state.podsSynced = true;
    const workers = new Map<string, PodWorkerSync>();
    for (const [uid, status] of [...this.podSyncStatuses]) {
      const orphan = !known.has(uid);
      if ((status.restartRequested || orphan) && this.removeTerminatedWorker(uid, status, orphan)) {
        this.notes.note(uid);
        continue;
      }
      const cfg = status.activeUpdate ?? status.pendingUpdate;
      workers.set(uid, {
        state: status.workType(),
        orphan,
        hasConfig: cfg?.pod !== undefined,
        static: false,
      });
      this.notes.note(uid);
    }
    return workers;
  }

  private removeTerminatedWorker(uid: string, status: PodSyncStatus, orphaned: boolean): boolean {
    if (!status.finished) {
      if (!orphaned) return false;
      status.deleted = true;
      if (status.isStarted() || status.observedRuntime) {
        if (!status.isTerminationRequested()) {
          status.terminatingAt = this.deps.clock.now();
          const pod = status.activeUpdate?.pod;
          status.gracePeriod = pod ? calculateEffectiveGracePeriod(status, pod, undefined)[0] : 1;
        }
        this.requeueLastPodUpdate(uid, status);
        return false;
      }
      // never started, never seen in the runtime: forget it without running anything
    }
    this.podSyncStatuses.delete(uid);
    this.cleanupPodUpdates(uid);
    return true;
  }

  /** Resolves when no worker has an update pending or in progress. */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Closes every worker's mailbox; running syncs finish, nothing new starts. */
  stop(): void {
    for (const uid of [...this.podUpdates.keys()]) this.cleanupPodUpdates(uid);
  }

  private isIdle(): boolean {
    for (const s of this.podSyncStatuses.values()) if (s.working) return false;
    return true;
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    for (const r of this.idleWaiters.splice(0)) r();
  }
}
