/**
 * The two ways the kubelet walks init containers (kuberuntime_container.go / kuberuntime_manager.go):
 * the legacy single "next init container" (findNextInitContainerToRun) and, for pods with restartable
 * init containers (sidecars), computeInitContainerActions, which may start several at once and keeps
 * sidecars running after initialization. Both read statuses newest-first by name, so they rely only on the
 * newest instance of each init container (older ones may have been pruned).
 */
import type { Container, Pod } from '../../api/v1.ts';
import type { ContainerStatusRT, PodStatusRT } from '../container/runtime.ts';
import { hashContainerHex } from './hash.ts';
import type { ComputePodActionsContext, ContainerKillReason, PodActions } from './pod-actions.ts';
import {
  describeStatus as describe,
  findContainerStatusByName,
  isRestartableInitContainer,
  restartPolicyOf,
  shouldRestartOnFailure,
} from './util.ts';

/** OOMKilled, exited non-zero, or unknown. */
export function isInitContainerFailed(s: ContainerStatusRT): boolean {
  if (s.reason === 'OOMKilled') return true;
  if (s.state === 'exited' && s.exitCode !== 0) return true;
  return s.state === 'unknown';
}

export interface NextInitContainer {
  /** the failed init container's status, when `next` is a restart of it */
  lastStatus?: ContainerStatusRT;
  next?: Container;
  done: boolean;
}

/** findNextInitContainerToRun (legacy path). */
export function findNextInitContainerToRun(pod: Pod, status: PodStatusRT): NextInitContainer {
  const init = pod.spec.initContainers ?? [];
  if (init.length === 0) return { done: true };
  for (const c of pod.spec.containers) {
    if (findContainerStatusByName(status, c.name)?.state === 'running') return { done: true };
  }
  for (let i = init.length - 1; i >= 0; i--) {
    const c = init[i] as Container;
    const s = findContainerStatusByName(status, c.name);
    if (s && isInitContainerFailed(s)) return { lastStatus: s, next: c, done: false };
  }
  for (let i = init.length - 1; i >= 0; i--) {
    const c = init[i] as Container;
    const s = findContainerStatusByName(status, c.name);
    if (!s) continue;
    if (s.state === 'running') return { done: false };
    if (s.state === 'exited') {
      if (i === init.length - 1) return { done: true };
      return { next: init[i + 1], done: false };
    }
  }
  return { next: init[0], done: false };
}

/**
 * computeInitContainerActions (sidecar path): fills initContainersToStart / containersToKill / killPod and
 * returns whether the pod counts as initialized (regular containers may then be examined).
 */
export function computeInitContainerActions(
  pod: Pod,
  status: PodStatusRT,
  changes: PodActions,
  ctx: ComputePodActionsContext,
): boolean {
  const init = pod.spec.initContainers ?? [];
  if (init.length === 0) return true;
  const why = (s: string) => changes.reasons.push(s);
  const policy = restartPolicyOf(pod);

  let podHasInitialized = pod.spec.containers.some((c) => {
    const s = findContainerStatusByName(status, c.name);
    return s?.state === 'created' || s?.state === 'running';
  });
  let isPreviouslyInitialized = podHasInitialized;
  const restartOnFailure = shouldRestartOnFailure(pod);
  const toStart: number[] = [];
  const kill = (s: ContainerStatusRT, c: Container, message: string, reason: ContainerKillReason) =>
    changes.containersToKill.set(s.id, { name: c.name, container: c, message, reason });

  for (let i = init.length - 1; i >= 0; i--) {
    const c = init[i] as Container;
    const sidecar = isRestartableInitContainer(c);
    const kind = sidecar ? 'sidecar' : 'init container';
    const s = findContainerStatusByName(status, c.name);
    if (!s) {
      if (isPreviouslyInitialized && sidecar) {
        toStart.push(i);
        why(`sidecar ${c.name} has no instance → start it`);
      }
      continue;
    }
    if (isPreviouslyInitialized && !sidecar) continue;

    switch (s.state) {
      case 'created':
        toStart.push(i);
        why(`${kind} ${c.name} stuck in created → start it`);
        break;
      case 'running': {
        if (!sidecar) {
          why(`init container ${c.name} is running → wait`);
          break;
        }
        if (c.startupProbe) {
          const startup = ctx.startupResult?.(s.id);
          if (startup === undefined) {
            why(`sidecar ${c.name} waits for its startup probe`);
            break;
          }
          if (startup !== 'Success') {
            if (startup === 'Failure') {
              kill(s, c, `Init container ${c.name} failed startup probe`, 'StartupProbe');
              toStart.push(i);
              why(`Init container ${c.name} failed startup probe → kill and restart`);
            }
            break;
          }
        }
        if (i === init.length - 1) podHasInitialized = true;
        else if (!isPreviouslyInitialized) {
          toStart.push(i + 1);
          why(`sidecar ${c.name} started → start ${init[i + 1]?.name}`);
        }
        if (s.hash !== hashContainerHex(c)) {
          kill(s, c, `Init container ${c.name} definition changed`, '');
          toStart.push(i);
          why(`Init container ${c.name} definition changed → kill and restart`);
          break;
        }
        if (c.livenessProbe) {
          const liveness = ctx.livenessResult?.(s.id);
          if (liveness === undefined) break;
          if (liveness === 'Failure') {
            kill(s, c, `Init container ${c.name} failed liveness probe`, 'LivenessProbe');
            toStart.push(i);
            why(`Init container ${c.name} failed liveness probe → kill and restart`);
          }
        }
        break;
      }
      case 'exited':
        if (sidecar) {
          toStart.push(i);
          why(`sidecar ${c.name} ${describe(s, ctx)} → restart (sidecars always restart)`);
        } else if (isInitContainerFailed(s)) {
          if (!restartOnFailure) {
            changes.killPod = true;
            changes.initContainersToStart = [];
            why(`init container ${c.name} ${describe(s, ctx)}; restartPolicy Never → kill pod`);
            return false;
          }
          toStart.push(i);
          why(`init container ${c.name} ${describe(s, ctx)}; restartPolicy ${policy} → restart it`);
        } else if (i === init.length - 1) {
          podHasInitialized = true;
        } else {
          toStart.push(i + 1);
          why(`init container ${c.name} completed → start ${init[i + 1]?.name}`);
        }
        break;
      default:
        if (sidecar) {
          kill(s, c, `Init container is in "unknown" state, try killing it before restart`, 'Unknown');
          toStart.push(i);
          why(`sidecar ${c.name} is in unknown state → kill and restart`);
        } else {
          if (!restartOnFailure) {
            changes.killPod = true;
            changes.initContainersToStart = [];
            why(`init container ${c.name} is in unknown state; restartPolicy Never → kill pod`);
            return false;
          }
          kill(s, c, `Init container is in "unknown" state, try killing it before restart`, 'Unknown');
          toStart.push(i);
          why(`init container ${c.name} is in unknown state → kill and restart`);
        }
    }
    if (!isPreviouslyInitialized) isPreviouslyInitialized = true;
  }
  if (!isPreviouslyInitialized) {
    toStart.push(0);
    why(`no init container started yet → start ${init[0]?.name}`);
  }
  changes.initContainersToStart = toStart.reverse();
  return podHasInitialized;
}
