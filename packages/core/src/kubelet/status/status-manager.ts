import type { ContainerStatus, Pod, PodCondition, PodSpec, PodStatus } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import type { PassiveClock } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import { isRestartableInitContainer } from '../kuberuntime/util.ts';
import { isTerminalPhase, podRef } from '../pod-ref.ts';
import { containerIDKey } from '../prober/results-manager.ts';
import { generateContainersReadyCondition, generatePodReadyCondition } from './conditions.ts';
import { ContainerReasonStatusUnknown } from './container-statuses.ts';
import { isStaticPod } from './phase.ts';

interface VersionedPodStatus {
  status: PodStatus;
  /** JSON of `status`, kept to tell an unchanged status (a resync) without serialising the stored one again */
  json: string;
  version: number;
  podIsFinished: boolean;
}

/**
 * StatusManager (pkg/kubelet/status/status_manager.go): the kubelet's cache of the pod statuses it has
 * computed, per UID, versioned. The sync functions write it (setPodStatus, terminatePod); the API reads it
 * (getPodStatus) — here it stands in for the apiserver copy as well, since there is no apiserver.
 *
 * Guarantees, as the kubelet's: startTime is set once and never changes; a condition keeps its
 * lastTransitionTime while its status is unchanged; under restartPolicy Never (and OnFailure for exit 0) a
 * terminated container never goes back to non-terminated; a terminal phase never goes back. Every change is
 * traced as `status.update` with the whole status. Never blocks.
 */
export class StatusManager {
  private readonly podStatuses = new Map<string, VersionedPodStatus>();

  constructor(
    private readonly clock: PassiveClock,
    private readonly trace: TraceRecorder,
  ) {}

  /**
   * syncBatch: the periodic pass of the kubelet's status manager (every statusSyncPeriodMs, 10 s). Of the
   * pods whose status says the worker finished (terminatePod ran), each the API still has with a
   * deletionTimestamp — and that is not a static pod's mirror — is deleted for good (canBeDeleted, then the
   * apiserver delete with grace 0 and the UID as precondition): the pod config's finalDelete, a DELETE with
   * grace 0 then REMOVE. This is what ends a pod that
   * reached Succeeded or Failed before it was deleted: its worker takes no further updates, so nothing else
   * would. Returns the UIDs removed.
   */
  syncBatch(api: { get(uid: string): Pod | undefined; finalDelete(uid: string): boolean }): string[] {
    const removed: string[] = [];
    for (const [uid, s] of this.podStatuses) {
      if (!s.podIsFinished) continue;
      const pod = api.get(uid);
      if (!pod?.metadata.deletionTimestamp || isMirrorPod(pod)) continue;
      if (api.finalDelete(uid)) removed.push(uid);
    }
    return removed;
  }

  /** The stored status itself, not a copy: callers read it and never mutate it. */
  getPodStatus(uid: string): PodStatus | undefined {
    return this.podStatuses.get(uid)?.status;
  }

  setPodStatus(pod: Pod, status: PodStatus): void {
    this.updateStatusInternal(pod, structuredClone(status), false);
  }

  /**
   * TerminatePod: the final status once the pod worker finished SyncTerminatedPod. Containers not known to
   * have terminated are reported as ContainerStatusUnknown/137; a Pending or Running pod becomes Failed.
   */
  terminatePod(pod: Pod): void {
    const cached = this.podStatuses.get(pod.metadata.uid as string);
    const old = cached?.status ?? pod.status ?? { phase: 'Pending' };
    const status = structuredClone(old);
    const unknown = () => ({
      terminated: {
        reason: ContainerReasonStatusUnknown,
        message: 'The container could not be located when the pod was terminated',
        exitCode: 137,
      },
    });
    if (hasPodInitialized(pod, old)) {
      for (const c of status.containerStatuses ?? []) if (!c.state.terminated) c.state = unknown();
    }
    const inits = status.initContainerStatuses ?? [];
    for (let i = 0; i < initializedContainers(inits); i++) {
      const c = inits[i] as ContainerStatus;
      if (!c.state.terminated) c.state = unknown();
    }
    if (!isStaticPod(pod) && !isTerminalPhase(status.phase)) status.phase = 'Failed';
    this.updateStatusInternal(pod, status, true);
  }

  /**
   * SetContainerReadiness: a readiness result changed (sync loop, probe source). Sets the container's
   * `ready` and recomputes ContainersReady and Ready. Ignored before the pod's first status, or for a
   * container ID the status does not show.
   */
  setContainerReadiness(pod: Pod, containerID: string, ready: boolean): void {
    this.updateContainer(pod, containerID, (c, status) => {
      if (c.ready === ready) return false;
      c.ready = ready;
      const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
      const conditions = status.conditions ?? [];
      const put = (next: PodCondition) => {
        const i = conditions.findIndex((x) => x.type === next.type);
        if (i >= 0) conditions[i] = next;
        else conditions.push(next);
      };
      put(generateContainersReadyCondition(pod.spec, all, status.phase));
      put(generatePodReadyCondition(pod.spec, conditions, all, status.phase));
      status.conditions = conditions;
      return true;
    });
  }

  /** SetContainerStartup: a startup result changed; sets the container's `started`. */
  setContainerStartup(pod: Pod, containerID: string, started: boolean): void {
    this.updateContainer(pod, containerID, (c) => {
      if (c.started === started) return false;
      c.started = started;
      return true;
    });
  }

  private updateContainer(
    pod: Pod,
    containerID: string,
    change: (c: ContainerStatus, status: PodStatus) => boolean,
  ): void {
    const cached = this.podStatuses.get(pod.metadata.uid as string);
    if (!cached) return; // "Container readiness changed before pod has synced"
    const status = structuredClone(cached.status);
    const key = containerIDKey(containerID);
    const c = [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])].find(
      (x) => x.containerID !== undefined && containerIDKey(x.containerID) === key,
    );
    if (!c || !change(c, status)) return;
    this.updateStatusInternal(pod, status, cached.podIsFinished);
  }

  /** Drops statuses of pods no longer desired (housekeeping). */
  removeOrphanedStatuses(keep: Set<string>): void {
    for (const uid of this.podStatuses.keys()) if (!keep.has(uid)) this.podStatuses.delete(uid);
  }

  private updateStatusInternal(pod: Pod, status: PodStatus, podIsFinished: boolean): void {
    const uid = pod.metadata.uid as string;
    const cached = this.podStatuses.get(uid);
    const old: PodStatus = cached?.status ?? pod.status ?? { phase: 'Pending' };

    const illegal = checkContainerStateTransition(old, status, pod.spec);
    if (illegal) return; // "Status update on pod aborted"
    if (isTerminalPhase(old.phase) && !isTerminalPhase(status.phase) && cached) return;

    const now = rfc3339(this.clock.now());
    for (const c of status.conditions ?? []) {
      const prev = old.conditions?.find((o) => o.type === c.type);
      c.lastTransitionTime =
        prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
      c.lastProbeTime ??= null;
    }
    if (old.startTime) status.startTime = old.startTime;
    else status.startTime ??= now;

    const json = JSON.stringify(status);
    if (cached && cached.podIsFinished === podIsFinished && cached.json === json) return;
    this.podStatuses.set(uid, {
      status,
      json,
      version: (cached?.version ?? 0) + 1,
      podIsFinished: podIsFinished || (cached?.podIsFinished ?? false),
    });
    this.trace.record({ type: 'status.update', ...podRef(pod), status: structuredClone(status) });
  }
}

/** A static pod's mirror in the API (kubernetes.io/config.mirror): the status manager never deletes it. */
function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;
}

/** The error the kubelet logs for an illegal container transition, or undefined. */
export function checkContainerStateTransition(
  old: PodStatus,
  next: PodStatus,
  spec: PodSpec,
): string | undefined {
  const policy = spec.restartPolicy ?? 'Always';
  if (policy === 'Always') return undefined;
  const check = (
    olds: ContainerStatus[],
    news: ContainerStatus[],
    skip: (name: string) => boolean,
    kind: string,
  ) => {
    for (const o of olds) {
      if (!o.state.terminated || skip(o.name)) continue;
      if (o.state.terminated.exitCode !== 0 && policy === 'OnFailure') continue;
      const n = news.find((x) => x.name === o.name);
      if (n && !n.state.terminated)
        return `terminated ${kind} ${n.name} attempted illegal transition to non-terminated state`;
    }
    return undefined;
  };
  const sidecar = (name: string) =>
    (spec.initContainers ?? []).some((c) => c.name === name && isRestartableInitContainer(c));
  return (
    check(old.containerStatuses ?? [], next.containerStatuses ?? [], () => false, 'container') ??
    check(old.initContainerStatuses ?? [], next.initContainerStatuses ?? [], sidecar, 'init container')
  );
}

/**
 * hasPodInitialized: no init containers, any regular container out of waiting (now or before), or the last
 * init container done: a regular one exited 0 (now or in its last state), a sidecar running and started.
 */
function hasPodInitialized(pod: Pod, status: PodStatus): boolean {
  const specInits = pod.spec.initContainers ?? [];
  if (specInits.length === 0) return true;
  for (const c of status.containerStatuses ?? []) {
    if (c.lastState.terminated || !c.state.waiting) return true;
  }
  const inits = status.initContainerStatuses ?? [];
  const last = inits[inits.length - 1];
  if (!last) return false;
  const spec = specInits.find((c) => c.name === last.name);
  if (!spec) return false;
  if (isRestartableInitContainer(spec)) return last.state.running !== undefined && last.started === true;
  return last.lastState.terminated?.exitCode === 0 || last.state.terminated?.exitCode === 0;
}

/**
 * initializedContainers: how many init statuses precede the trailing run of never-started (waiting) ones,
 * and at least one: a pod killed before any init container ran reports its first one as failed.
 */
function initializedContainers(inits: ContainerStatus[]): number {
  for (let i = inits.length - 1; i >= 0; i--) {
    const c = inits[i] as ContainerStatus;
    if (!c.state.waiting || c.lastState.terminated) return i + 1;
  }
  return Math.min(1, inits.length);
}
