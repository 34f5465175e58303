/**
 * Helpers shared by computePodActions and the runtime manager: sandbox change detection
 * (kuberuntime/util/util.go PodSandboxChanged) and the kubecontainer predicates on a PodStatusRT
 * (container/helpers.go). All pure.
 */
import type { Container, Pod } from '../../api/v1.ts';
import type {
  ContainerStatusRT,
  PodStatusRT,
  RuntimeContainer,
  RuntimePod,
  RuntimeSandbox,
  SandboxStatusRT,
} from '../container/runtime.ts';

/** Newest instance of a container name (statuses are sorted newest first). */
export function findContainerStatusByName(status: PodStatusRT, name: string): ContainerStatusRT | undefined {
  return status.containerStatuses.find((c) => c.name === name);
}

/** A sidecar: an init container with restartPolicy Always. */
export function isRestartableInitContainer(c: Pick<Container, 'restartPolicy'>): boolean {
  return c.restartPolicy === 'Always';
}

export function hasRestartableInitContainer(pod: Pod): boolean {
  return (pod.spec.initContainers ?? []).some(isRestartableInitContainer);
}

export function restartPolicyOf(pod: Pod): 'Always' | 'OnFailure' | 'Never' {
  return pod.spec.restartPolicy ?? 'Always';
}

/** shouldRestartOnFailure: anything but Never. */
export function shouldRestartOnFailure(pod: Pod): boolean {
  return restartPolicyOf(pod) !== 'Never';
}

/** kubecontainer.ShouldContainerBeRestarted. */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: PodStatusRT): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const s = findContainerStatusByName(status, container.name);
  if (!s) return true;
  if (s.state === 'running') return false;
  if (s.state === 'unknown' || s.state === 'created') return true;
  const policy = restartPolicyOf(pod);
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && s.exitCode === 0) return false;
  return true;
}

export interface SandboxChange {
  createNew: boolean;
  attempt: number;
  sandboxID: string;
  /** why, in words */
  why: string;
}

/** podSandboxChanged: does the pod need a new sandbox, with which attempt, killing which one. */
export function podSandboxChanged(pod: Pod, status: PodStatusRT): SandboxChange {
  const sandboxes = status.sandboxStatuses;
  const latest = sandboxes[0];
  if (!latest) return { createNew: true, attempt: 0, sandboxID: '', why: 'no sandbox yet' };
  const ready = sandboxes.filter((s) => s.state === 'ready').length;
  if (ready > 1) {
    return {
      createNew: true,
      attempt: latest.attempt + 1,
      sandboxID: latest.id,
      why: `${ready} sandboxes ready`,
    };
  }
  if (latest.state !== 'ready') {
    return { createNew: true, attempt: latest.attempt + 1, sandboxID: latest.id, why: 'sandbox not ready' };
  }
  const hostNetwork = pod.spec.hostNetwork === true;
  if (latest.hostNetwork !== hostNetwork) {
    return { createNew: true, attempt: latest.attempt + 1, sandboxID: '', why: 'network namespace changed' };
  }
  if (!hostNetwork && latest.ip === '') {
    return { createNew: true, attempt: latest.attempt + 1, sandboxID: latest.id, why: 'sandbox has no IP' };
  }
  return { createNew: false, attempt: latest.attempt, sandboxID: latest.id, why: 'sandbox ready' };
}

/** The kubecontainer.Container a runtime pod lists for one container status. */
export function toRuntimeContainer(c: ContainerStatusRT): RuntimeContainer {
  const { id, name, image, imageRef, hash, state, createdAt } = c;
  return { id, name, image, imageRef, hash, state, createdAt };
}

/** The sandbox entry a runtime pod lists for one sandbox status. */
export function toRuntimeSandbox(s: SandboxStatusRT): RuntimeSandbox {
  const { id, state, createdAt, attempt } = s;
  return { id, state, createdAt, attempt };
}

/** kubecontainer.ConvertPodStatusToRunningPod: running containers and every sandbox. */
export function convertPodStatusToRunningPod(status: PodStatusRT): RuntimePod {
  return {
    id: status.id,
    name: status.name,
    namespace: status.namespace,
    createdAt: status.sandboxStatuses[0]?.createdAt ?? 0,
    containers: status.containerStatuses.filter((c) => c.state === 'running').map(toRuntimeContainer),
    sandboxes: status.sandboxStatuses.map(toRuntimeSandbox),
    managed: true,
  };
}

/** format.Pod: `<name>_<namespace>(<uid>)`. */
export function formatPod(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? 'default'}(${pod.metadata.uid ?? ''})`;
}

/** The ObjectReference fieldPath of a container: spec.containers{x} or spec.initContainers{x}. */
export function containerFieldPath(pod: Pod, containerName: string): string | undefined {
  if (pod.spec.containers.some((c) => c.name === containerName)) return `spec.containers{${containerName}}`;
  if ((pod.spec.initContainers ?? []).some((c) => c.name === containerName)) {
    return `spec.initContainers{${containerName}}`;
  }
  return undefined;
}

export function getContainerSpec(pod: Pod, name: string): Container | undefined {
  return (
    pod.spec.containers.find((c) => c.name === name) ??
    (pod.spec.initContainers ?? []).find((c) => c.name === name)
  );
}

/** "exited 1", "exited 0 (Completed) 12s ago", "is in unknown state", "is created but not started". */
export function describeStatus(s: ContainerStatusRT, ctx: { now?: number } = {}): string {
  switch (s.state) {
    case 'exited': {
      const reason = s.reason && s.reason !== 'Error' && s.reason !== 'Completed' ? ` (${s.reason})` : '';
      const ago =
        ctx.now !== undefined && s.finishedAt > 0
          ? ` ${Math.max(0, Math.round((ctx.now - s.finishedAt) / 1000))}s ago`
          : '';
      return `exited ${s.exitCode}${reason}${ago}`;
    }
    case 'running':
      return 'is running';
    case 'created':
      return 'is created but not started';
    default:
      return 'is in unknown state';
  }
}

/** Newest first by an int64-ns string (CRI created_at). */
export function cmpNsDesc(a: string, b: string): number {
  const x = BigInt(a || '0');
  const y = BigInt(b || '0');
  return x === y ? 0 : x > y ? -1 : 1;
}
