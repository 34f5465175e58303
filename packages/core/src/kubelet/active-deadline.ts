import type { PodStatus } from '../api/v1.ts';
import type { PassiveClock } from '../clock/clock.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { EventRecorder } from './events/event-recorder.ts';

const DeadlineExceededReason = 'DeadlineExceeded';
export const DeadlineExceededMessage = 'Pod was active on the node longer than the specified deadline';

/** lifecycle.ShouldEvictResponse */
export interface ShouldEvictResponse {
  evict: boolean;
  reason?: string;
  message?: string;
}

/** PodSyncLoopHandler: the sync loop also syncs every pod for which some handler says so. */
interface PodSyncLoopHandler {
  shouldSync(pod: AdmittedPod): boolean;
}

/** PodSyncHandler: generateAPIPodStatus fails every pod some handler wants evicted. */
export interface PodSyncHandler {
  shouldEvict(pod: AdmittedPod): ShouldEvictResponse;
}

/**
 * activeDeadlineHandler (active_deadline.go): enforces spec.activeDeadlineSeconds. As a PodSyncLoopHandler it
 * makes the sync loop sync a pod every second (the sync ticker) once the deadline has passed; as a
 * PodSyncHandler it makes generateAPIPodStatus report phase Failed, reason DeadlineExceeded — SyncPod then
 * sees a terminal phase and the pod worker moves the pod to terminating. The deadline counts from the
 * status's startTime (the status manager's, else the API's); a pod with no startTime is never past it.
 * Each shouldEvict that evicts records a Normal DeadlineExceeded event. Pure reads; never blocks.
 */
export class ActiveDeadlineHandler implements PodSyncLoopHandler, PodSyncHandler {
  constructor(
    private readonly clock: PassiveClock,
    private readonly getPodStatus: (uid: string) => PodStatus | undefined,
    private readonly recorder: EventRecorder,
  ) {}

  shouldSync(pod: AdmittedPod): boolean {
    return this.pastActiveDeadline(pod);
  }

  shouldEvict(pod: AdmittedPod): ShouldEvictResponse {
    if (!this.pastActiveDeadline(pod)) return { evict: false };
    this.recorder.event(pod, 'Normal', DeadlineExceededReason, DeadlineExceededMessage);
    return { evict: true, reason: DeadlineExceededReason, message: DeadlineExceededMessage };
  }

  private pastActiveDeadline(pod: AdmittedPod): boolean {
    const deadline = pod.spec.activeDeadlineSeconds;
    if (deadline === undefined || deadline === null) return false;
    const status = this.getPodStatus(pod.metadata.uid) ?? pod.status;
    const start = status?.startTime ? Date.parse(status.startTime) : Number.NaN;
    if (Number.isNaN(start)) return false;
    return this.clock.since(start) >= deadline * 1000;
  }
}
