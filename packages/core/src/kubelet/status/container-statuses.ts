import type { Container, ContainerState, ContainerStatus } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import type { ContainerStatusRT, PodStatusRT } from '../container/runtime.ts';
import { findContainerStatusByName, shouldContainerBeRestarted } from '../kuberuntime/util.ts';
import type { ReasonCache } from '../reason-cache.ts';

const ContainerCreating = 'ContainerCreating';
const PodInitializing = 'PodInitializing';
/** kubecontainer.ContainerReasonStatusUnknown */
export const ContainerReasonStatusUnknown = 'ContainerStatusUnknown';

const t = (ms: number): string | undefined => (ms > 0 ? rfc3339(ms) : undefined);

/** kubecontainer.ContainerID.String(): `<runtime>://<id>`, as `kubectl get pod -o yaml` shows it. */
function containerIDString(runtimeName: string | undefined, id: string): string {
  return runtimeName ? `${runtimeName}://${id}` : id;
}

function convertContainerStatus(
  cs: ContainerStatusRT,
  old: ContainerStatus | undefined,
  runtimeName: string | undefined,
): ContainerStatus {
  const containerID = containerIDString(runtimeName, cs.id);
  const status: ContainerStatus = {
    name: cs.name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: cs.restartCount,
    image: cs.image,
    imageID: cs.imageRef,
    containerID,
  };
  switch (cs.state) {
    case 'running':
      status.state = { running: { startedAt: t(cs.startedAt) } };
      break;
    case 'created':
      status.state = { waiting: {} };
      break;
    case 'exited':
      status.state = {
        terminated: {
          exitCode: cs.exitCode,
          reason: cs.reason,
          message: cs.message,
          startedAt: t(cs.startedAt),
          finishedAt: t(cs.finishedAt),
          containerID,
        },
      };
      break;
    default:
      if (old?.state.running) {
        // it ran and is gone: "ran and failed", not "never ran"
        status.state = {
          terminated: {
            reason: ContainerReasonStatusUnknown,
            message: 'The container could not be located when the pod was terminated',
            exitCode: 137,
          },
        };
        status.restartCount = old.restartCount + 1;
      } else status.state = { waiting: {} };
  }
  return status;
}

/**
 * convertToAPIContainerStatuses (kubelet_pods.go): the v1 statuses of one container list (regular or init)
 * from the runtime statuses, the previous v1 statuses and the reason cache.
 */
export function convertToAPIContainerStatuses(
  pod: AdmittedPod,
  podStatus: PodStatusRT,
  previous: readonly ContainerStatus[],
  containers: readonly Container[],
  hasInitContainers: boolean,
  isInitContainer: boolean,
  reasonCache: ReasonCache,
): ContainerStatus[] {
  const oldStatuses = new Map(previous.map((s) => [s.name, s]));
  const defaultReason = hasInitContainers ? PodInitializing : ContainerCreating;
  const statuses = new Map<string, ContainerStatus>();

  for (const c of containers) {
    let status: ContainerStatus = {
      name: c.name,
      image: c.image,
      imageID: '',
      state: { waiting: { reason: defaultReason } },
      lastState: {},
      ready: false,
      restartCount: 0,
    };
    const old = oldStatuses.get(c.name);
    if (old) {
      if (old.state.terminated) status = structuredClone(old);
      else {
        status.restartCount = old.restartCount;
        status.lastState = structuredClone(old.lastState);
      }
    }
    statuses.set(c.name, status);
  }

  // A container that vanished from the runtime while it was running: show it as stopped, not pending.
  for (const c of containers) {
    if (podStatus.containerStatuses.some((s) => s.name === c.name)) continue;
    const old = oldStatuses.get(c.name);
    if (!old || old.state.terminated || !old.state.running) continue;
    const status = statuses.get(c.name) as ContainerStatus;
    if (status.state.waiting?.reason !== defaultReason) continue;
    if (status.lastState.terminated) continue;
    status.lastState = {
      terminated: {
        reason: ContainerReasonStatusUnknown,
        message:
          'The container could not be located when the pod was deleted.  The container used to be Running',
        exitCode: 137,
      },
    };
    if (!pod.metadata.deletionTimestamp) status.restartCount += 1;
  }

  // newest instance → state, second newest → lastState
  const sorted = [...podStatus.containerStatuses].sort((a, b) => b.createdAt - a.createdAt);
  const seen = new Map<string, number>();
  for (const cs of sorted) {
    if (!statuses.has(cs.name)) continue;
    const n = seen.get(cs.name) ?? 0;
    if (n >= 2) continue;
    const converted = convertContainerStatus(cs, oldStatuses.get(cs.name), podStatus.runtimeName);
    if (n === 0) statuses.set(cs.name, converted);
    else (statuses.get(cs.name) as ContainerStatus).lastState = converted.state;
    seen.set(cs.name, n + 1);
  }

  // containers the next sync would (re)start and whose last start failed: Waiting with the failure reason
  for (const c of containers) {
    if (isInitContainer) {
      const s = findContainerStatusByName(podStatus, c.name);
      if (s && s.state === 'exited' && s.exitCode === 0) continue;
    }
    if (!shouldContainerBeRestarted(c, pod, podStatus)) continue;
    const reason = reasonCache.get(pod.metadata.uid, c.name);
    if (!reason) continue;
    const status = statuses.get(c.name) as ContainerStatus;
    if (status.state.terminated) status.lastState = status.state;
    const waiting: ContainerState = { waiting: { reason: reason.err, message: reason.message } };
    status.state = waiting;
  }

  if (isInitContainer) return containers.map((c) => statuses.get(c.name) as ContainerStatus);
  return [...statuses.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
