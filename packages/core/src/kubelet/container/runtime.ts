/**
 * The engine's view of the runtime, as pkg/kubelet/container (kubecontainer) defines it: runtime pods as
 * grouped by the pod-UID label, the PodStatus a relist or GetPodStatus produces, and the Runtime interface
 * the kubelet's sync functions call (implemented by kuberuntime/kuberuntime-manager.ts).
 *
 * Times are ms since the epoch on the engine clock; 0 means unset.
 */
import type { Pod } from '../../api/v1.ts';
import type { PlanSummary, SyncAction } from '../../events/trace.ts';
import { goQuote } from '../../util/go-quote.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';

/** kubecontainer.State: the CRI state folded to four values. */
export type ContainerStateName = 'created' | 'running' | 'exited' | 'unknown';
export type SandboxStateName = 'ready' | 'notready';

/** One container as ListContainers shows it, grouped into a RuntimePod. */
export interface RuntimeContainer {
  id: string;
  name: string;
  image: string;
  imageRef: string;
  hash: string;
  state: ContainerStateName;
  createdAt: number;
}

export interface RuntimeSandbox {
  id: string;
  state: SandboxStateName;
  createdAt: number;
  attempt: number;
}

/** kubecontainer.Pod: what the runtime has for one pod UID. */
export interface RuntimePod {
  id: string; // pod UID
  name: string;
  namespace: string;
  createdAt: number;
  containers: RuntimeContainer[];
  sandboxes: RuntimeSandbox[];
  /** true when every sandbox and container carries our ownership label */
  managed: boolean;
}

/** kubecontainer.Status: one container instance, from ContainerStatus. */
export interface ContainerStatusRT {
  id: string;
  name: string;
  state: ContainerStateName;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  image: string;
  imageRef: string;
  /** from the io.kubernetes.container.hash annotation */
  hash: string;
  /** from the io.kubernetes.container.restartCount annotation */
  restartCount: number;
  reason: string;
  message: string;
}

export interface SandboxStatusRT {
  id: string;
  state: SandboxStateName;
  attempt: number;
  createdAt: number;
  ip: string;
  hostNetwork: boolean;
}

/**
 * kubecontainer.PodStatus: the runtime state of one pod at one moment. Container statuses are sorted newest
 * created first; sandbox statuses newest first. An unknown UID yields an empty status (no sandboxes, no
 * containers), never an error.
 */
export interface PodStatusRT {
  id: string;
  name: string;
  namespace: string;
  ips: string[];
  containerStatuses: ContainerStatusRT[];
  sandboxStatuses: SandboxStatusRT[];
  /** when this status was read (engine clock) */
  timestamp: number;
  /** the runtime's name (Version.runtime_name), the type of container IDs in the API: `containerd://<id>` */
  runtimeName?: string;
}

/** kubecontainer.PodSyncResult: the SyncResults of one runtime SyncPod, plus the plan it ran. */
export interface PodSyncResult {
  actions: SyncAction[];
  /** an error outside any single action (e.g. the whole sync could not begin) */
  syncError?: string;
  plan?: PlanSummary;
}

/**
 * PodSyncResult.Error() (container/sync_result.go): the whole-sync error as `failed to SyncPod: <err>`, each
 * failed action as `failed to "<action>" for "<target>" with <error>: "<message>"` (Go's %q), joined as
 * utilerrors.NewAggregate prints them: one alone, several as `[a, b]`. Undefined when nothing failed.
 */
export function syncResultError(r: PodSyncResult): string | undefined {
  const parts: string[] = [];
  if (r.syncError) parts.push(`failed to SyncPod: ${r.syncError}`);
  for (const a of r.actions) {
    if (a.error)
      parts.push(
        `failed to ${goQuote(a.action)} for ${goQuote(a.target)} with ${a.error}: ${goQuote(a.message ?? '')}`,
      );
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

/**
 * Runtime: what the kubelet's sync functions need from the container runtime manager.
 * Calls may take as long as the CRI takes (KillPod waits out grace periods); callers run them from a pod
 * worker, never from the sync loop itself.
 */
export interface Runtime {
  /** GetPods(all): all=false returns only running containers and READY sandboxes. */
  getPods(all: boolean): Promise<RuntimePod[]>;
  getPodStatus(uid: string, name: string, namespace: string): Promise<PodStatusRT>;
  /** The runtime half of SyncPod: computePodActions, then execute. */
  syncPod(pod: AdmittedPod, status: PodStatusRT): Promise<PodSyncResult>;
  /**
   * Stop every running container (within grace) and every sandbox. pod may be undefined for orphans.
   * When `signal` aborts (the pod worker shortened the grace period), the wait for the containers to stop is
   * abandoned and the call rejects with an AbortError; the caller runs it again with the new grace.
   */
  killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride?: number,
    signal?: AbortSignal,
  ): Promise<PodSyncResult>;
}
