/**
 * CRI → kubecontainer conversions (kuberuntime/convert.go, helpers.go): states folded to the four
 * kubecontainer values, and a ContainerStatus with hash and restart count read from the annotations.
 */
import type { ContainerEventResponse, ContainerStatus } from '../../cri/types.ts';
import { nsToMs } from '../../cri/types.ts';
import type {
  ContainerStateName,
  ContainerStatusRT,
  PodStatusRT,
  SandboxStateName,
} from '../container/runtime.ts';
import { determinePodSandboxIPs } from './kuberuntime-sandbox.ts';
import { getContainerInfoFromAnnotations, getContainerInfoFromLabels } from './labels.ts';

export function sandboxState(s: string): SandboxStateName {
  return s === 'SANDBOX_READY' ? 'ready' : 'notready';
}

export function containerState(s: string): ContainerStateName {
  switch (s) {
    case 'CONTAINER_CREATED':
      return 'created';
    case 'CONTAINER_RUNNING':
      return 'running';
    case 'CONTAINER_EXITED':
      return 'exited';
    default:
      return 'unknown';
  }
}

/** Exit code, reason, message and finish time only for exited containers; start time unless created. */
export function toKubeContainerStatus(s: ContainerStatus): ContainerStatusRT {
  const a = getContainerInfoFromAnnotations(s.annotations);
  const exited = s.state === 'CONTAINER_EXITED';
  return {
    id: s.id,
    name: getContainerInfoFromLabels(s.labels).containerName || s.metadata?.name || '',
    state: containerState(s.state),
    createdAt: nsToMs(s.created_at),
    startedAt: s.state === 'CONTAINER_CREATED' ? 0 : nsToMs(s.started_at),
    finishedAt: exited ? nsToMs(s.finished_at) : 0,
    exitCode: exited ? s.exit_code : 0,
    image: s.image?.image ?? '',
    imageRef: s.image_ref,
    hash: a.hash,
    restartCount: a.restartCount,
    reason: exited ? s.reason : '',
    message: exited ? s.message : '',
  };
}

/**
 * GeneratePodStatus (evented PLEG): the pod status a GetContainerEvents event carries — its one sandbox and
 * every container status it lists, newest created first. Undefined when the event has no sandbox metadata
 * (the kubelet logs and skips such events).
 */
export function generatePodStatus(event: ContainerEventResponse): PodStatusRT | undefined {
  const sb = event.pod_sandbox_status;
  const md = sb?.metadata;
  if (!sb || !md) return undefined;
  const containers = event.containers_statuses
    .map(toKubeContainerStatus)
    .sort((a, b) => b.createdAt - a.createdAt);
  return {
    id: md.uid,
    name: md.name,
    namespace: md.namespace,
    ips: sb.state === 'SANDBOX_READY' ? determinePodSandboxIPs(sb) : [],
    containerStatuses: containers,
    sandboxStatuses: [
      {
        id: sb.id,
        state: sandboxState(sb.state),
        attempt: md.attempt,
        createdAt: nsToMs(sb.created_at),
        ip: sb.network?.ip ?? '',
        hostNetwork: sb.linux?.namespaces?.options?.network === 'NODE',
      },
    ],
    timestamp: nsToMs(event.created_at),
  };
}
