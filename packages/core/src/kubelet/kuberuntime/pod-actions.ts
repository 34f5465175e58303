/**
 * podActions, the plan computePodActions (compute-pod-actions.ts) makes and kuberuntime-manager.ts carries out,
 * and what the decision reads; init-containers.ts fills the init containers' part of it.
 */
import type { Container } from '../../api/v1.ts';
import type { ProbeResult } from '../../events/trace.ts';

export type ContainerKillReason = '' | 'StartupProbe' | 'LivenessProbe' | 'FailedPostStartHook' | 'Unknown';

interface ContainerToKillInfo {
  name: string;
  container: Container;
  message: string;
  reason: ContainerKillReason;
}

/** podActions: the plan. Indexes refer to pod.spec.containers / pod.spec.initContainers. */
export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  sandboxID: string;
  attempt: number;
  /** legacy init path: the single init container to start next */
  nextInitContainerToStart?: Container;
  /** sidecar path: init containers to start, in spec order */
  initContainersToStart: number[];
  containersToStart: number[];
  /** container ID → what to kill and the Killing message */
  containersToKill: Map<string, ContainerToKillInfo>;
  /** true when the sidecar (restartable init container) path decided the init containers */
  handleRestartableInitContainers: boolean;
  reasons: string[];
}

/** Probe results the decision reads (the prober's liveness/startup result managers), by container ID. */
export interface ComputePodActionsContext {
  livenessResult?(containerID: string): ProbeResult | undefined;
  startupResult?(containerID: string): ProbeResult | undefined;
  /** engine time, only used to word the reasons */
  now?: number;
}
