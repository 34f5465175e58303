import type { ContainerStatus, Pod, PodCondition, PodPhase, PodSpec } from '../../api/v1.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { isRestartableInitContainer } from '../kuberuntime/util.ts';
import { hasAnyRegularContainerStarted } from './phase.ts';

/** Condition reasons (pkg/kubelet/status/generate.go). */
const UnknownContainerStatuses = 'UnknownContainerStatuses';
const PodCompleted = 'PodCompleted';
const PodFailed = 'PodFailed';
const ContainersNotReady = 'ContainersNotReady';
const ContainersNotInitialized = 'ContainersNotInitialized';
const ReadinessGatesNotReady = 'ReadinessGatesNotReady';

/** The condition types the kubelet owns (kubetypes.PodConditionByKubelet). */
export const KubeletConditions = new Set([
  'PodScheduled',
  'Ready',
  'Initialized',
  'ContainersReady',
  'PodReadyToStartContainers',
]);

/** Go's %s of a []string: `[a b]`. */
function goList(names: string[]): string {
  return `[${names.join(' ')}]`;
}

function find(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/**
 * PodSandboxChanged (kuberuntime/util): whether the next SyncPod must create a (new) sandbox. Only the
 * boolean is needed here, for PodReadyToStartContainers.
 */
function podSandboxNeedsCreate(pod: Pod, status: PodStatusRT): boolean {
  const sandboxes = status.sandboxStatuses;
  if (sandboxes.length === 0) return true;
  if (sandboxes.filter((s) => s.state === 'ready').length > 1) return true;
  const latest = sandboxes[0];
  if (latest?.state !== 'ready') return true;
  if (latest.hostNetwork !== (pod.spec.hostNetwork ?? false)) return true;
  if (!latest.hostNetwork && latest.ip === '') return true;
  return false;
}

export function generatePodReadyToStartContainersCondition(pod: Pod, status: PodStatusRT): PodCondition {
  return {
    type: 'PodReadyToStartContainers',
    status: podSandboxNeedsCreate(pod, status) ? 'False' : 'True',
  };
}

export function generatePodInitializedCondition(
  spec: PodSpec,
  statuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase,
): PodCondition {
  const init = spec.initContainers ?? [];
  if (statuses === undefined && init.length > 0) {
    return { type: 'Initialized', status: 'False', reason: UnknownContainerStatuses };
  }
  const all = statuses ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of init) {
    const s = find(all, c.name);
    if (!s) unknown.push(c.name);
    else if (isRestartableInitContainer(c) ? !s.started : !s.ready) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'Initialized', status: 'True', reason: PodCompleted };
  }
  if (hasAnyRegularContainerStarted(spec, all)) return { type: 'Initialized', status: 'True' };
  const msgs: string[] = [];
  if (unknown.length > 0) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) msgs.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (msgs.length > 0) {
    return {
      type: 'Initialized',
      status: 'False',
      reason: ContainersNotInitialized,
      message: msgs.join(', '),
    };
  }
  return { type: 'Initialized', status: 'True' };
}

export function generateContainersReadyCondition(
  spec: PodSpec,
  statuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase,
): PodCondition {
  if (statuses === undefined)
    return { type: 'ContainersReady', status: 'False', reason: UnknownContainerStatuses };
  const unknown: string[] = [];
  const unready: string[] = [];
  const counted = [...(spec.initContainers ?? []).filter(isRestartableInitContainer), ...spec.containers];
  for (const c of counted) {
    const s = find(statuses, c.name);
    if (!s) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'ContainersReady', status: 'False', reason: PodCompleted };
  }
  if (phase === 'Failed') return { type: 'ContainersReady', status: 'False', reason: PodFailed };
  const msgs: string[] = [];
  if (unknown.length > 0) msgs.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) msgs.push(`containers with unready status: ${goList(unready)}`);
  if (msgs.length > 0) {
    return { type: 'ContainersReady', status: 'False', reason: ContainersNotReady, message: msgs.join(', ') };
  }
  return { type: 'ContainersReady', status: 'True' };
}

export function generatePodReadyCondition(
  spec: PodSpec,
  conditions: readonly PodCondition[],
  statuses: readonly ContainerStatus[] | undefined,
  phase: PodPhase,
): PodCondition {
  const cr = generateContainersReadyCondition(spec, statuses, phase);
  if (cr.status !== 'True') {
    const out: PodCondition = { type: 'Ready', status: cr.status };
    if (cr.reason) out.reason = cr.reason;
    if (cr.message) out.message = cr.message;
    return out;
  }
  const msgs: string[] = [];
  for (const rg of spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === rg.conditionType);
    if (!c) msgs.push(`corresponding condition of pod readiness gate "${rg.conditionType}" does not exist.`);
    else if (c.status !== 'True') {
      msgs.push(`the status of pod readiness gate "${rg.conditionType}" is not "True", but ${c.status}`);
    }
  }
  if (msgs.length > 0) {
    return { type: 'Ready', status: 'False', reason: ReadinessGatesNotReady, message: msgs.join(', ') };
  }
  return { type: 'Ready', status: 'True' };
}
