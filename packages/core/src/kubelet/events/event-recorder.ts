/**
 * Kubernetes Events as the kubelet emits them (pkg/kubelet/events): reasons and messages verbatim.
 * Implemented by ./recorder.ts (aggregation with counts, as `kubectl describe` shows them, and a
 * `k8s.event` trace entry per emission). Callers never block on it.
 */
import type { Pod } from '../../api/v1.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** fieldPath like `spec.containers{app}` / `spec.initContainers{init}` for container events. */
  event(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void;
}

/** Reason constants (pkg/kubelet/events/event.go). */
export const Reasons = {
  CreatedContainer: 'Created',
  StartedContainer: 'Started',
  FailedToCreateContainer: 'Failed',
  FailedToStartContainer: 'Failed',
  KillingContainer: 'Killing',
  PreemptContainer: 'Preempting',
  BackOffStartContainer: 'BackOff',
  ExceededGracePeriod: 'ExceededGracePeriod',
  FailedToKillPod: 'FailedKillPod',
  FailedToCreatePodContainer: 'FailedCreatePodContainer',
  FailedToMakePodDataDirectories: 'Failed',
  NetworkNotReady: 'NetworkNotReady',
  PullingImage: 'Pulling',
  PulledImage: 'Pulled',
  FailedToPullImage: 'Failed',
  FailedToInspectImage: 'InspectFailed',
  ErrImageNeverPullPolicy: 'ErrImageNeverPull',
  BackOffPullImage: 'BackOff',
  ContainerUnhealthy: 'Unhealthy',
  ContainerProbeWarning: 'ProbeWarning',
  FailedSync: 'FailedSync',
  SandboxChanged: 'SandboxChanged',
  FailedCreatePodSandBox: 'FailedCreatePodSandBox',
  FailedStatusPodSandBox: 'FailedPodSandBoxStatus',
  FailedPostStartHook: 'FailedPostStartHook',
  FailedPreStopHook: 'FailedPreStopHook',
} as const;
