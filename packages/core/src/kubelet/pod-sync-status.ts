import type { Pod, PodStatus } from '../api/v1.ts';
import type { PodRef, UpdateType, WorkerState, WorkType } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { RuntimePod } from './container/runtime.ts';

/**
 * KillPodOptions: how a kill request (eviction, orphan cleanup, a shorter grace period) reaches the worker.
 * `completed` plays the part of CompletedCh: called once the pod has terminated (or at once when it
 * already had).
 */
export interface KillPodOptions {
  completed?: () => void;
  evict?: boolean;
  podStatusFunc?: (status: PodStatus) => void;
  /** Seconds; the effective grace period once terminating (never 0). */
  podTerminationGracePeriodSecondsOverride?: number;
}

/** UpdatePodOptions: one request to the pod worker. Either `pod` (config) or only `runningPod` (orphan). */
export interface UpdatePodOptions {
  updateType: UpdateType;
  /** when the sync loop received the change (metrics) */
  startTime?: number;
  pod?: AdmittedPod;
  mirrorPod?: Pod;
  runningPod?: RuntimePod;
  killPodOptions?: KillPodOptions;
}

/** podWork: what one wake of the worker runs. */
export interface PodWork {
  workType: WorkType;
  options: UpdatePodOptions;
}

/**
 * podSyncStatus (pod_workers.go): everything the pod workers know about one UID, as facts with timestamps
 * (ms on the engine clock, 0 = not yet) and flags. The state is derived from them, never stored:
 *
 *   syncedAt ─ startedAt ────── terminatingAt ───── terminatedAt ───── finished ─ (deleted from the map)
 *   |  SyncPod                 |  TerminatingPod    |  TerminatedPod   | Finished | Forgotten
 *
 * Owned by PodWorkers; only its methods mutate it.
 */
export class PodSyncStatus {
  /** cancels the running sync (a kill arrived or the grace period shrank) */
  abort: AbortController | undefined;
  ref: PodRef;
  fullname: string;
  working = false;
  pendingUpdate: UpdatePodOptions | undefined;
  activeUpdate: UpdatePodOptions | undefined;
  syncedAt = 0;
  startedAt = 0;
  terminatingAt = 0;
  terminatedAt = 0;
  /** effective grace period in seconds; only ever decreases once set */
  gracePeriod = 0;
  notifyPostTerminating: (() => void)[] = [];
  statusPostTerminating: ((s: PodStatus) => void)[] = [];
  startedTerminating = false;
  deleted = false;
  evicted = false;
  finished = false;
  restartRequested = false;
  observedRuntime = false;

  constructor(ref: PodRef, fullname: string, syncedAt: number) {
    this.ref = ref;
    this.fullname = fullname;
    this.syncedAt = syncedAt;
  }

  isWorking(): boolean {
    return this.working;
  }
  isTerminationRequested(): boolean {
    return this.terminatingAt !== 0;
  }
  isTerminationStarted(): boolean {
    return this.startedTerminating;
  }
  isTerminated(): boolean {
    return this.terminatedAt !== 0;
  }
  isFinished(): boolean {
    return this.finished;
  }
  isEvicted(): boolean {
    return this.evicted;
  }
  isDeleted(): boolean {
    return this.deleted;
  }
  isStarted(): boolean {
    return this.startedAt !== 0;
  }

  workType(): WorkType {
    if (this.isTerminated()) return 'TerminatedPod';
    if (this.isTerminationRequested()) return 'TerminatingPod';
    return 'SyncPod';
  }

  /** The state the trace shows: the work type, or Finished once SyncTerminatedPod succeeded. */
  workerState(): WorkerState {
    return this.finished ? 'Finished' : this.workType();
  }

  /** mergeLastUpdate: what downstream components see as the pod's current config. */
  mergeLastUpdate(other: UpdatePodOptions): void {
    const opts: UpdatePodOptions = this.activeUpdate ?? { updateType: other.updateType };
    this.activeUpdate = opts;
    opts.updateType = other.updateType;
    if (other.pod) opts.pod = other.pod;
    if (other.mirrorPod) opts.mirrorPod = other.mirrorPod;
    if (other.runningPod) opts.runningPod = other.runningPod;
    if (other.killPodOptions) {
      const k: KillPodOptions = {};
      const o = other.killPodOptions.podTerminationGracePeriodSecondsOverride;
      if (o !== undefined) k.podTerminationGracePeriodSecondsOverride = o;
      opts.killPodOptions = k;
    }
  }
}

/**
 * calculateEffectiveGracePeriod: the grace period for a terminating pod. It starts from the current one
 * and may only shrink: the API's deletionGracePeriodSeconds, then a kill override, each applies only if
 * smaller (or nothing is set yet); with neither, the spec's terminationGracePeriodSeconds; never below 1.
 * Returns [grace, shortened] where shortened means a previous non-zero value changed.
 */
export function calculateEffectiveGracePeriod(
  status: PodSyncStatus,
  pod: Pod,
  options: KillPodOptions | undefined,
): [number, boolean] {
  let grace = status.gracePeriod;
  let overridden = false;
  const deletion = pod.metadata.deletionGracePeriodSeconds;
  if (deletion !== undefined && (grace === 0 || deletion < grace)) {
    grace = deletion;
    overridden = true;
  }
  const override = options?.podTerminationGracePeriodSecondsOverride;
  if (override !== undefined && (grace === 0 || override < grace)) {
    grace = override;
    overridden = true;
  }
  if (!overridden && grace === 0 && pod.spec.terminationGracePeriodSeconds !== undefined) {
    grace = pod.spec.terminationGracePeriodSeconds;
  }
  if (grace < 1) grace = 1;
  return [grace, status.gracePeriod !== 0 && status.gracePeriod !== grace];
}

/** kubecontainer.Pod.ToAPIPod: the placeholder pod of a runtime-only (orphaned) pod. */
export function runningPodToAPIPod(rp: RuntimePod): AdmittedPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid: rp.id, name: rp.name, namespace: rp.namespace },
    spec: { containers: rp.containers.map((c) => ({ name: c.name, image: c.image })) },
  };
}
