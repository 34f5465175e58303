import type { Pod, PodStatus } from '../api/v1.ts';
import type { UpdateType } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodStatusRT, PodSyncResult, RuntimePod } from './container/runtime.ts';
import type { PodSyncStatus, PodWork } from './pod-sync-status.ts';

/** The error text that marks a transient network error (requeue after ~1 s). */
export const NetworkNotReadyErrorMsg = 'network is not ready';

/** What a sync function reports besides success: the runtime's results, and for SyncPod isTerminal. */
export interface SyncOutcome {
  isTerminal?: boolean;
  result?: PodSyncResult;
}

/** A failed sync that still carries the runtime's per-action results (for the trace). */
export class PodSyncError extends Error {
  constructor(
    message: string,
    readonly result?: PodSyncResult,
  ) {
    super(message);
  }
}

/**
 * PodSyncer (kubelet.go SyncHandler's pod half): the four sync functions, implemented by the kubelet
 * (kubelet-sync.ts). Called only by a pod's own worker, one at a time per UID; may take as long as the
 * runtime does. Each throws to report failure; an AbortError means "cancelled, a newer update is queued".
 */
export interface PodSyncer {
  syncPod(
    signal: AbortSignal,
    updateType: UpdateType,
    pod: AdmittedPod,
    mirrorPod: Pod | undefined,
    podStatus: PodStatusRT,
  ): Promise<SyncOutcome>;
  syncTerminatingPod(
    signal: AbortSignal,
    pod: AdmittedPod,
    podStatus: PodStatusRT,
    gracePeriod: number | undefined,
    podStatusFn: ((s: PodStatus) => void) | undefined,
  ): Promise<SyncOutcome>;
  syncTerminatingRuntimePod(signal: AbortSignal, runningPod: RuntimePod): Promise<SyncOutcome>;
  syncTerminatedPod(signal: AbortSignal, pod: AdmittedPod, podStatus: PodStatusRT): Promise<SyncOutcome>;
}

/** isPodStatusCacheTerminal: nothing running and no READY sandbox (an empty status counts). */
export function isPodStatusCacheTerminal(status: PodStatusRT): boolean {
  return (
    !status.containerStatuses.some((c) => c.state === 'running') &&
    !status.sandboxStatuses.some((s) => s.state === 'ready')
  );
}

/**
 * Runs one unit of a pod worker's work on the syncer: exactly one of syncPod / syncTerminatingPod /
 * syncTerminatingRuntimePod / syncTerminatedPod, by the work type. Called only by the pod's own worker
 * (pod-workers.ts); waits as long as that sync does. Terminating work first marks that the worker has seen
 * the termination (no new containers start) and applies the last status func given with the kill.
 */
export function dispatchWork(
  syncer: PodSyncer,
  signal: AbortSignal,
  work: PodWork,
  status: PodSyncStatus,
  podStatus: PodStatusRT,
): Promise<SyncOutcome> {
  const o = work.options;
  switch (work.workType) {
    case 'TerminatedPod':
      return syncer.syncTerminatedPod(signal, o.pod as AdmittedPod, podStatus);
    case 'TerminatingPod': {
      const grace = o.killPodOptions?.podTerminationGracePeriodSecondsOverride;
      status.startedTerminating = true;
      const statusFn = status.statusPostTerminating[status.statusPostTerminating.length - 1];
      if (o.runningPod) return syncer.syncTerminatingRuntimePod(signal, o.runningPod);
      return syncer.syncTerminatingPod(signal, o.pod as AdmittedPod, podStatus, grace, statusFn);
    }
    default:
      return syncer.syncPod(signal, o.updateType, o.pod as AdmittedPod, o.mirrorPod, podStatus);
  }
}
