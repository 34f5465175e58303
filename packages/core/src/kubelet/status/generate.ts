import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../../api/v1.ts';
import type { PodSyncHandler } from '../active-deadline.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { isRestartableInitContainer } from '../kuberuntime/util.ts';
import { isTerminalPhase } from '../pod-ref.ts';
import type { ReasonCache } from '../reason-cache.ts';
import {
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
  KubeletConditions,
} from './conditions.ts';
import { convertToAPIContainerStatuses } from './container-statuses.ts';
import { getPhase } from './phase.ts';

/**
 * What the prober contributes to a status: `ready` and `started` of each container
 * (prober_manager.go UpdatePodStatus). The default is a node with no probe workers: a running container is
 * started and ready; a regular init container is ready once it exited 0.
 */
export interface ProbeStatusUpdater {
  updatePodStatus(pod: Pod, status: PodStatus): void;
}

const noProbes: ProbeStatusUpdater = {
  updatePodStatus(pod, status) {
    for (const c of status.containerStatuses ?? []) {
      c.started = c.state.running !== undefined;
      c.ready = c.started;
    }
    for (const c of status.initContainerStatuses ?? []) {
      const spec = pod.spec.initContainers?.find((x) => x.name === c.name);
      if (spec && isRestartableInitContainer(spec)) {
        c.started = c.state.running !== undefined;
        c.ready = c.started;
      } else {
        c.ready = c.state.terminated !== undefined && c.state.terminated.exitCode === 0;
      }
    }
  },
};

export interface GenerateDeps {
  /** the status manager's cached status for the pod, if any */
  cachedStatus: PodStatus | undefined;
  reasonCache: ReasonCache;
  prober?: ProbeStatusUpdater;
  /** internal modules that may fail the pod (the active deadline): the first that evicts wins */
  podSyncHandlers?: readonly PodSyncHandler[];
}

import { getPodQOS } from '../kuberuntime/kuberuntime-sandbox.ts';

/**
 * generateAPIPodStatus (kubelet_pods.go): the v1 PodStatus of a pod from its runtime status. Called by the
 * sync functions (SyncPod with podIsTerminal=false; SyncTerminatingPod's final status and SyncTerminatedPod
 * with true). Pure apart from reading the reason cache.
 */
export function generateAPIPodStatus(
  pod: AdmittedPod,
  podStatus: PodStatusRT,
  podIsTerminal: boolean,
  deps: GenerateDeps,
): PodStatus {
  const apiStatus: PodStatus = pod.status ?? { phase: 'Pending' };
  const old: PodStatus = deps.cachedStatus ?? apiStatus;
  const initContainers = pod.spec.initContainers ?? [];
  const hasInit = initContainers.length > 0;

  const s: PodStatus = { phase: 'Pending', qosClass: getPodQOS(pod) };
  if (podStatus.ips.length > 0) {
    s.podIP = podStatus.ips[0];
    s.podIPs = podStatus.ips.map((ip) => ({ ip }));
  }
  s.containerStatuses = convertToAPIContainerStatuses(
    pod,
    podStatus,
    old.containerStatuses ?? [],
    pod.spec.containers,
    hasInit,
    false,
    deps.reasonCache,
  );
  if (hasInit) {
    s.initContainerStatuses = convertToAPIContainerStatuses(
      pod,
      podStatus,
      old.initContainerStatuses ?? [],
      initContainers,
      hasInit,
      true,
      deps.reasonCache,
    );
  }

  const all: ContainerStatus[] = [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? [])];
  s.phase = getPhase(pod, all, podIsTerminal);

  // three-way merge: a terminal phase from the status manager or the API wins over a computed non-terminal one
  if (!isTerminalPhase(s.phase)) {
    if (isTerminalPhase(old.phase)) s.phase = old.phase;
    else if (isTerminalPhase(apiStatus.phase)) s.phase = apiStatus.phase;
  }
  if (s.phase === old.phase) {
    const reason = old.reason || apiStatus.reason;
    const message = old.message || apiStatus.message;
    if (reason) s.reason = reason;
    if (message) s.message = message;
  }
  for (const h of deps.podSyncHandlers ?? []) {
    const r = h.shouldEvict(pod);
    if (!r.evict) continue;
    s.phase = 'Failed';
    s.reason = r.reason ?? '';
    s.message = r.message ?? '';
    break;
  }
  // pods never leave Succeeded/Failed as the API shows them
  if (isTerminalPhase(apiStatus.phase) && s.phase !== apiStatus.phase) s.phase = apiStatus.phase;

  (deps.prober ?? noProbes).updatePodStatus(pod, s);

  const conditions: PodCondition[] = (apiStatus.conditions ?? []).filter(
    (c) => !KubeletConditions.has(c.type),
  );
  const disruption = old.conditions?.find((c) => c.type === 'DisruptionTarget');
  if (disruption && !conditions.some((c) => c.type === 'DisruptionTarget')) conditions.push(disruption);
  const allStatuses = [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
  conditions.push(generatePodReadyToStartContainersCondition(pod, podStatus));
  conditions.push(generatePodInitializedCondition(pod.spec, allStatuses, s.phase));
  conditions.push(generatePodReadyCondition(pod.spec, conditions, allStatuses, s.phase));
  conditions.push(generateContainersReadyCondition(pod.spec, allStatuses, s.phase));
  conditions.push({ type: 'PodScheduled', status: 'True' });
  s.conditions = conditions;
  return s;
}
