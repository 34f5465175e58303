import type { Clock } from '../clock/clock.ts';
import type { TraceRecorder } from '../events/recorder.ts';
import type { WorkerState, WorkType } from '../events/trace.ts';
import type { PodCache } from './container/cache.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import type { PodSyncStatus } from './pod-sync-status.ts';
import type { PodSyncer } from './pod-syncer.ts';
import type { WorkQueue } from './util/queue/work-queue.ts';

interface PodWorkersConfig {
  resyncIntervalMs: number;
  backOffPeriodMs: number;
  backOffOnTransientErrorPeriodMs: number;
  jitterFactor: number;
}

export interface PodWorkersDeps {
  syncer: PodSyncer;
  workQueue: WorkQueue;
  podCache: PodCache;
  clock: Clock;
  trace: TraceRecorder;
  recorder: EventRecorder;
  config: PodWorkersConfig;
  /** [0, 1) source for the requeue jitter */
  random: () => number;
  /**
   * Called once a worker finished (SyncTerminatedPod succeeded). The kubelet uses it the way the status
   * manager does: a deleted pod whose worker finished may now leave the API.
   */
  onPodFinished?: (uid: string) => void;
}

/** What SyncKnownPods reports per tracked UID (PodWorkerSync). */
export interface PodWorkerSync {
  state: WorkType;
  orphan: boolean;
  hasConfig: boolean;
  static: boolean;
}

/** The workers' records: PodWorkers writes them; PodWorkersQueries and WorkerStateNotes only read. */
export interface PodWorkersState {
  readonly podSyncStatuses: Map<string, PodSyncStatus>;
  /** true after the first syncKnownPods: from then on unknown UIDs are treated as not running */
  podsSynced: boolean;
}

/**
 * The pod workers' answers to the other loops (pod_workers.go's query methods), a part PodWorkers owns and
 * exposes as its own methods: housekeeping, the PLEG's ContainerDied cleanup, status generation and the UI
 * ask them; none blocks. For a UID the workers do not track, the answer depends on `podsSynced`: before
 * the first SyncKnownPods an unknown pod could still have running containers; after it, an unknown pod is
 * one to clean up. Methods are bound (arrow properties), so they may be passed around on their own.
 */
export class PodWorkersQueries {
  constructor(private readonly state: PodWorkersState) {}

  private get(uid: string): PodSyncStatus | undefined {
    return this.state.podSyncStatuses.get(uid);
  }

  readonly isPodKnownTerminated = (uid: string): boolean => this.get(uid)?.isTerminated() ?? false;
  readonly couldHaveRunningContainers = (uid: string): boolean => {
    const s = this.get(uid);
    return s ? !s.isTerminated() : !this.state.podsSynced;
  };
  readonly shouldPodBeFinished = (uid: string): boolean => {
    const s = this.get(uid);
    return s ? s.isFinished() : this.state.podsSynced;
  };
  readonly isPodTerminationRequested = (uid: string): boolean =>
    this.get(uid)?.isTerminationRequested() ?? false;
  readonly shouldPodContainersBeTerminating = (uid: string): boolean => {
    const s = this.get(uid);
    return s ? s.isTerminationStarted() : this.state.podsSynced;
  };
  readonly shouldPodRuntimeBeRemoved = (uid: string): boolean => {
    const s = this.get(uid);
    return s ? s.isTerminated() : this.state.podsSynced;
  };
  readonly shouldPodContentBeRemoved = (uid: string): boolean => {
    const s = this.get(uid);
    return s ? s.isEvicted() || (s.isDeleted() && s.isTerminated()) : this.state.podsSynced;
  };
  /** The derived state of a UID, or undefined when not tracked (the UI and tests). */
  readonly stateOf = (uid: string): WorkerState | undefined => this.get(uid)?.workerState();
  /** Read-only view of a UID's record (tests, the node view). */
  readonly statusOf = (uid: string): Readonly<PodSyncStatus> | undefined => this.get(uid);
}

/**
 * Traces `worker.state` when the derived state of a UID changed (Forgotten once its record is gone).
 * PodWorkers calls note() after every change it makes to a record; it never blocks.
 */
export class WorkerStateNotes {
  private readonly lastState = new Map<string, WorkerState>();
  private readonly refs = new Map<string, { podUID: string; pod: string }>();

  constructor(
    private readonly state: PodWorkersState,
    private readonly trace: TraceRecorder,
  ) {}

  note(uid: string): void {
    const status = this.state.podSyncStatuses.get(uid);
    const to: WorkerState = status ? status.workerState() : 'Forgotten';
    const from = this.lastState.get(uid) ?? null;
    if (from === to || (from === null && to === 'Forgotten')) return;
    const ref = status?.ref ?? this.refs.get(uid) ?? { podUID: uid, pod: '' };
    this.refs.set(uid, ref);
    this.trace.record({ type: 'worker.state', ...ref, from, to });
    if (to === 'Forgotten') {
      this.lastState.delete(uid);
      this.refs.delete(uid);
    } else this.lastState.set(uid, to);
  }
}
