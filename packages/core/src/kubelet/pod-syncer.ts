import type { Pod, PodStatus } from '../api/v1.ts';
import type { UpdateType } from '../events/trace.ts';
import type { PodStatusRT, PodSyncResult, RuntimePod } from './container/runtime.ts';

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
    pod: Pod,
    mirrorPod: Pod | undefined,
    podStatus: PodStatusRT,
  ): Promise<SyncOutcome>;
  syncTerminatingPod(
    signal: AbortSignal,
    pod: Pod,
    podStatus: PodStatusRT,
    gracePeriod: number | undefined,
    podStatusFn: ((s: PodStatus) => void) | undefined,
  ): Promise<SyncOutcome>;
  syncTerminatingRuntimePod(signal: AbortSignal, runningPod: RuntimePod): Promise<SyncOutcome>;
  syncTerminatedPod(signal: AbortSignal, pod: Pod, podStatus: PodStatusRT): Promise<SyncOutcome>;
}

/** isPodStatusCacheTerminal: nothing running and no READY sandbox (an empty status counts). */
export function isPodStatusCacheTerminal(status: PodStatusRT): boolean {
  return (
    !status.containerStatuses.some((c) => c.state === 'running') &&
    !status.sandboxStatuses.some((s) => s.state === 'ready')
  );
}
