import type { Clock } from '../clock/clock.ts';
import type { TraceRecorder } from '../events/recorder.ts';
import type { WorkerState, WorkType } from '../events/trace.ts';
import type { PodCache } from './container/cache.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import type { PodSyncStatus } from './pod-sync-status.ts';
import type { PodSyncer } from './pod-syncer.ts';
import type { WorkQueue } from './util/queue/work-queue.ts';

export interface PodWorkersConfig {
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

/**
 * The pod workers' answers to the other loops (pod_workers.go's query methods): housekeeping, the PLEG's
 * ContainerDied cleanup, status generation and the UI ask them; none blocks. For a UID the workers do not
 * track, the answer depends on `podsSynced`: before the first SyncKnownPods an unknown pod could still have
 * running containers; after it, an unknown pod is one to clean up.
 */
export abstract class PodWorkersQueries {
  protected readonly podSyncStatuses = new Map<string, PodSyncStatus>();
  /** true after the first syncKnownPods: from then on unknown UIDs are treated as not running */
  protected podsSynced = false;

  isPodKnownTerminated(uid: string): boolean {
    return this.podSyncStatuses.get(uid)?.isTerminated() ?? false;
  }
  couldHaveRunningContainers(uid: string): boolean {
    const s = this.podSyncStatuses.get(uid);
    return s ? !s.isTerminated() : !this.podsSynced;
  }
  shouldPodBeFinished(uid: string): boolean {
    const s = this.podSyncStatuses.get(uid);
    return s ? s.isFinished() : this.podsSynced;
  }
  isPodTerminationRequested(uid: string): boolean {
    return this.podSyncStatuses.get(uid)?.isTerminationRequested() ?? false;
  }
  shouldPodContainersBeTerminating(uid: string): boolean {
    const s = this.podSyncStatuses.get(uid);
    return s ? s.isTerminationStarted() : this.podsSynced;
  }
  shouldPodRuntimeBeRemoved(uid: string): boolean {
    const s = this.podSyncStatuses.get(uid);
    return s ? s.isTerminated() : this.podsSynced;
  }
  shouldPodContentBeRemoved(uid: string): boolean {
    const s = this.podSyncStatuses.get(uid);
    return s ? s.isEvicted() || (s.isDeleted() && s.isTerminated()) : this.podsSynced;
  }

  /** The derived state of a UID, or undefined when not tracked (the UI and tests). */
  stateOf(uid: string): WorkerState | undefined {
    return this.podSyncStatuses.get(uid)?.workerState();
  }
  /** Read-only view of a UID's record (tests, the node view). */
  statusOf(uid: string): Readonly<PodSyncStatus> | undefined {
    return this.podSyncStatuses.get(uid);
  }
  get size(): number {
    return this.podSyncStatuses.size;
  }
}
