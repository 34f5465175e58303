import type { ContainerStatus, Pod, PodPhase, PodSpec } from '../../api/v1.ts';
import { isRestartableInitContainer } from '../kuberuntime/util.ts';

function find(info: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return info.find((s) => s.name === name);
}

/** HasAnyRegularContainerStarted: some regular container is running or has terminated. */
export function hasAnyRegularContainerStarted(spec: PodSpec, statuses: readonly ContainerStatus[]): boolean {
  const names = new Set(spec.containers.map((c) => c.name));
  return statuses.some(
    (s) => names.has(s.name) && (s.state.running !== undefined || s.state.terminated !== undefined),
  );
}

/**
 * getPhase (kubelet_pods.go): the pod phase from the container statuses (regular and init together).
 * podIsTerminal is true once the pod worker has decided the pod is done (SyncTerminatingPod's final
 * status, SyncTerminatedPod): then stopped containers are final whatever the restart policy.
 */
export function getPhase(pod: Pod, info: readonly ContainerStatus[], podIsTerminal: boolean): PodPhase {
  const spec = pod.spec;
  const restartPolicy = spec.restartPolicy ?? 'Always';
  let pendingRestartableInit = 0;
  let pendingRegularInit = 0;
  let failedInitialization = 0;

  for (const c of spec.initContainers ?? []) {
    if (isRestartableInitContainer(c)) continue;
    const s = find(info, c.name);
    if (!s) {
      pendingRegularInit++;
    } else if (s.state.running) {
      pendingRegularInit++;
    } else if (s.state.terminated) {
      if (s.state.terminated.exitCode !== 0) failedInitialization++;
    } else if (s.state.waiting) {
      if (s.lastState?.terminated) {
        if (s.lastState.terminated.exitCode !== 0) failedInitialization++;
      } else pendingRegularInit++;
    } else pendingRegularInit++;
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;

  for (const c of spec.initContainers ?? []) {
    if (!isRestartableInitContainer(c)) continue;
    const s = find(info, c.name);
    if (!s) {
      unknown++;
    } else if (s.state.running) {
      if (!s.started) pendingRestartableInit++;
      running++;
    } else if (s.state.terminated) {
      // a stopped sidecar does not count towards the phase
    } else if (s.state.waiting) {
      if (!s.lastState?.terminated) {
        pendingRestartableInit++;
        waiting++;
      }
    } else {
      pendingRestartableInit++;
      unknown++;
    }
  }

  for (const c of spec.containers) {
    const s = find(info, c.name);
    if (!s) {
      unknown++;
    } else if (s.state.running) {
      running++;
    } else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    } else unknown++;
  }

  if (failedInitialization > 0 && restartPolicy === 'Never') return 'Failed';

  if (
    pendingRegularInit > 0 ||
    (pendingRestartableInit > 0 && !hasAnyRegularContainerStarted(spec, info)) ||
    waiting > 0
  ) {
    return 'Pending';
  }
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}

/** Every pod here comes from the API source; a static pod would carry this annotation with another source. */
export function isStaticPod(pod: Pod): boolean {
  const src = pod.metadata.annotations?.['kubernetes.io/config.source'];
  return src !== undefined && src !== 'api';
}
