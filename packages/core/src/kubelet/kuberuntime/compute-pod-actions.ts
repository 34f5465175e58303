/**
 * computePodActions: the pure decision half of the runtime SyncPod (kuberuntime_manager.go). Given the pod
 * spec and what the runtime shows, it says what to kill, what sandbox to create and which containers to
 * start; kuberuntime-manager.ts carries the plan out. Every decision also leaves a sentence in `reasons`,
 * which the step-through UI shows as "why".
 *
 * Rule order (kubelet v1.32):
 *   1. sandbox (re)creation  → kill pod, start from init[0] or all candidates (or stop: Never / nothing left)
 *   2. init containers       → legacy "next one" path, or the sidecar path when the pod has a
 *                              restartable init container; regular containers wait until initialized
 *   3. regular containers    → start what should (re)start, kill running ones whose hash changed or whose
 *                              liveness/startup probe failed
 *   4. nothing kept, nothing to start → kill pod
 * Ephemeral containers are not modelled.
 */
import type { Container, Pod } from '../../api/v1.ts';
import type { PlanSummary } from '../../events/trace.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { hashContainerHex } from './hash.ts';
import {
  computeInitContainerActions,
  findNextInitContainerToRun,
  isInitContainerFailed,
} from './init-containers.ts';
import type { ComputePodActionsContext, ContainerKillReason, PodActions } from './pod-actions.ts';
import {
  describeStatus as describe,
  findContainerStatusByName,
  hasRestartableInitContainer,
  podSandboxChanged,
  restartPolicyOf,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from './util.ts';

export function computePodActions(
  pod: Pod,
  status: PodStatusRT,
  ctx: ComputePodActionsContext = {},
): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const sidecarPath = hasRestartableInitContainer(pod);
  const changes: PodActions = {
    killPod: sandbox.createNew,
    createSandbox: sandbox.createNew,
    sandboxID: sandbox.sandboxID,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: new Map(),
    handleRestartableInitContainers: sidecarPath,
    reasons: [],
  };
  const why = (s: string) => changes.reasons.push(s);
  const policy = restartPolicyOf(pod);
  const initContainers = pod.spec.initContainers ?? [];

  if (sandbox.createNew) {
    const verb = sandbox.attempt === 0 ? 'create sandbox' : 'kill pod and create sandbox';
    if (policy === 'Never' && sandbox.attempt !== 0 && status.containerStatuses.length !== 0) {
      changes.createSandbox = false;
      why(`${sandbox.why}; restartPolicy Never and containers already ran → kill pod, no new sandbox`);
      return changes;
    }
    const candidates: number[] = [];
    pod.spec.containers.forEach((c, idx) => {
      if (policy === 'OnFailure' && containerSucceeded(c, status)) return;
      candidates.push(idx);
    });
    if (candidates.length === 0) {
      const initialized = sidecarPath
        ? hasAnyRegularContainerCreated(pod, status)
        : findNextInitContainerToRun(pod, status).done;
      if (initialized) {
        changes.createSandbox = false;
        why(`${sandbox.why}; every container succeeded under OnFailure → kill pod, no new sandbox`);
        return changes;
      }
    }
    if (initContainers.length > 0) {
      if (sidecarPath) changes.initContainersToStart = [0];
      else changes.nextInitContainerToStart = initContainers[0];
      why(
        `${sandbox.why} → ${verb} attempt ${sandbox.attempt}; start init container ${initContainers[0]?.name}`,
      );
      return changes;
    }
    changes.containersToStart = candidates;
    const names = candidates.map((i) => pod.spec.containers[i]?.name).join(', ');
    why(`${sandbox.why} → ${verb} attempt ${sandbox.attempt}; start ${names || 'nothing'}`);
    return changes;
  }

  if (!sidecarPath) {
    const { lastStatus, next, done } = findNextInitContainerToRun(pod, status);
    if (!done) {
      if (next) {
        const failed = lastStatus !== undefined && isInitContainerFailed(lastStatus);
        if (failed && !shouldRestartOnFailure(pod)) {
          changes.killPod = true;
          why(
            `init container ${next.name} failed (${describe(lastStatus, ctx)}); restartPolicy Never → kill pod`,
          );
        } else {
          if (lastStatus?.state === 'unknown') {
            changes.containersToKill.set(lastStatus.id, {
              name: next.name,
              container: next,
              message: `Init container is in "unknown" state, try killing it before restart`,
              reason: 'Unknown',
            });
          }
          changes.nextInitContainerToStart = next;
          why(
            failed
              ? `init container ${next.name} ${describe(lastStatus, ctx)}; restartPolicy ${policy} → restart it`
              : `init container ${next.name} is next → start it`,
          );
        }
      } else {
        why('init container still running → wait');
      }
      return changes;
    }
  } else {
    const initialized = computeInitContainerActions(pod, status, changes, ctx);
    if (changes.killPod || !initialized) {
      if (!changes.killPod) why('pod not initialized yet → regular containers wait');
      return changes;
    }
  }

  let keepCount = 0;
  pod.spec.containers.forEach((container, idx) => {
    const s = findContainerStatusByName(status, container.name);
    if (s?.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, status)) {
        changes.containersToStart.push(idx);
        if (s?.state === 'unknown') {
          changes.containersToKill.set(s.id, {
            name: s.name,
            container,
            message: `Container is in "unknown" state, try killing it before restart`,
            reason: 'Unknown',
          });
        }
        why(
          s
            ? `${container.name} ${describe(s, ctx)}; restartPolicy ${policy} → restart`
            : `${container.name} not created yet → start`,
        );
      } else if (s) {
        why(
          pod.metadata.deletionTimestamp
            ? `${container.name} ${describe(s, ctx)}; pod is being deleted → leave it`
            : `${container.name} ${describe(s, ctx)}; restartPolicy ${policy} → leave it`,
        );
      }
      return;
    }
    let message: string;
    let reason: ContainerKillReason = '';
    let restart = shouldRestartOnFailure(pod);
    if (s.hash !== hashContainerHex(container)) {
      message = `Container ${container.name} definition changed`;
      restart = true;
    } else if (ctx.livenessResult?.(s.id) === 'Failure') {
      message = `Container ${container.name} failed liveness probe`;
      reason = 'LivenessProbe';
    } else if (ctx.startupResult?.(s.id) === 'Failure') {
      message = `Container ${container.name} failed startup probe`;
      reason = 'StartupProbe';
    } else {
      keepCount++;
      return;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      changes.containersToStart.push(idx);
    }
    changes.containersToKill.set(s.id, { name: s.name, container, message, reason });
    why(`${message} → kill${restart ? ' and restart' : ` (restartPolicy ${policy})`}`);
  });

  if (keepCount === 0 && changes.containersToStart.length === 0) {
    changes.killPod = true;
    if (sidecarPath) changes.initContainersToStart = [];
    why('no container to keep or start → kill pod');
  } else if (changes.reasons.length === 0) {
    why('all containers running as specified → nothing to do');
  }
  return changes;
}

function containerSucceeded(c: Container, status: PodStatusRT): boolean {
  const s = findContainerStatusByName(status, c.name);
  return s !== undefined && s.state === 'exited' && s.exitCode === 0;
}

function hasAnyRegularContainerCreated(pod: Pod, status: PodStatusRT): boolean {
  return pod.spec.containers.some((c) => {
    const s = findContainerStatusByName(status, c.name);
    return s !== undefined && (s.state === 'created' || s.state === 'running' || s.state === 'exited');
  });
}

/** The trace form of a plan. */
export function summarize(pod: Pod, actions: PodActions): PlanSummary {
  const init = pod.spec.initContainers ?? [];
  const summary: PlanSummary = {
    killPod: actions.killPod,
    createSandbox: actions.createSandbox,
    attempt: actions.attempt,
    initContainersToStart: actions.initContainersToStart.map((i) => init[i]?.name ?? `#${i}`),
    containersToStart: actions.containersToStart.map((i) => pod.spec.containers[i]?.name ?? `#${i}`),
    containersToKill: [...actions.containersToKill].map(([containerID, k]) => ({
      name: k.name,
      containerID,
      message: k.message,
    })),
    reasons: [...actions.reasons],
  };
  if (actions.sandboxID) summary.sandboxId = actions.sandboxID;
  if (actions.nextInitContainerToStart) summary.nextInitContainer = actions.nextInitContainerToStart.name;
  return summary;
}
