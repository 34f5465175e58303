import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodUpdate } from './config/config.ts';
import type { KubeletComponents } from './kubelet-components.ts';
import { filterOutInactivePods } from './kubelet-pods.ts';
import { getPodQOS } from './kuberuntime/kuberuntime-sandbox.ts';
import type { PodAdmitHandler, PodAdmitResult } from './lifecycle/interfaces.ts';
import { PredicateAdmitHandler } from './lifecycle/predicate.ts';
import { isTerminalPhase } from './pod-ref.ts';
import type { ProbeUpdate } from './prober/results-manager.ts';

/**
 * The sync loop's handlers (kubelet.go's Handle* methods): they move config, PLEG and probe input into the
 * pod manager, the status manager and the pod workers. Called only from the sync loop's iteration
 * (kubelet-loop.ts); none blocks: each only records state and sends updates to the pod workers.
 */
export class PodHandlers {
  /** the kubelet's admitHandlers; each added pod must pass every one (canAdmitPod) */
  private readonly admitHandlers: PodAdmitHandler[];

  constructor(private readonly c: KubeletComponents) {
    this.admitHandlers = [new PredicateAdmitHandler(c.config.maxPods)];
  }

  handleConfigUpdate(u: PodUpdate): void {
    switch (u.op) {
      case 'ADD':
        this.handlePodAdditions(u.pods);
        return;
      case 'UPDATE':
      case 'DELETE': // graceful deletion is an update carrying deletionTimestamp
        this.handlePodUpdates(u.pods);
        return;
      case 'REMOVE':
        this.handlePodRemoves(u.pods);
        return;
      case 'RECONCILE':
        for (const p of u.pods) this.c.podManager.updatePod(p);
        return;
    }
  }

  /**
   * HandlePodAdditions: oldest first, each pod into the pod manager, then admission: a pod not already
   * terminating or terminal must pass every admit handler against the pods still active on the node (the
   * others in the pod manager, minus those known terminated and those terminal and not terminating, which
   * is how rejected pods stop counting). A rejected pod stays in the pod manager (and the API) as Failed
   * and never reaches a pod worker; the others go to theirs as SyncPodCreate.
   *
   * At boot the stored pods arrive oldest first, so when they are more than the node holds, the oldest are
   * admitted and the newest rejected, as after a kubelet restart.
   */
  handlePodAdditions(pods: AdmittedPod[]): void {
    const { clock, podManager, podWorkers } = this.c;
    const start = clock.now();
    const sorted = [...pods].sort((a, b) => creation(a) - creation(b));
    for (const pod of sorted) {
      podManager.addPod(pod);
      const uid = pod.metadata.uid;
      if (!podWorkers.isPodTerminationRequested(uid) && !isTerminalPhase(pod.status?.phase)) {
        const r = this.canAdmitPod(pod);
        if (!r.admit) {
          this.rejectPod(pod, r.reason, r.message);
          continue;
        }
      }
      podWorkers.updatePod({ updateType: 'SyncPodCreate', pod, startTime: start });
    }
  }

  /** canAdmitPod: the first refusal of the admit handlers, or admit. */
  private canAdmitPod(pod: AdmittedPod): PodAdmitResult {
    const uid = pod.metadata.uid;
    const { podManager, podWorkers, statusManager } = this.c;
    const others = filterOutInactivePods(podManager.getPods(), podWorkers, statusManager).filter(
      (p) => p.metadata.uid !== uid,
    );
    for (const h of this.admitHandlers) {
      const r = h.admit({ pod, otherPods: others });
      if (!r.admit) return r;
    }
    return { admit: true };
  }

  /** rejectPod: a Warning Event with the handler's reason and message, and the pod Failed for good. */
  private rejectPod(pod: AdmittedPod, reason: string, message: string): void {
    this.c.recorder.event(pod, 'Warning', reason, message);
    this.c.statusManager.setPodStatus(pod, {
      phase: 'Failed',
      reason,
      message: `Pod was rejected: ${message}`,
      qosClass: getPodQOS(pod),
    });
  }

  handlePodUpdates(pods: AdmittedPod[]): void {
    const start = this.c.clock.now();
    for (const pod of pods) {
      this.c.podManager.updatePod(pod);
      this.c.podWorkers.updatePod({ updateType: 'SyncPodUpdate', pod, startTime: start });
    }
  }

  /** HandlePodRemoves: the pod is gone from the API; the worker tears it down if it has not yet. */
  handlePodRemoves(pods: AdmittedPod[]): void {
    const start = this.c.clock.now();
    for (const pod of pods) {
      this.c.podManager.removePod(pod);
      this.c.podWorkers.updatePod({ updateType: 'SyncPodKill', pod, startTime: start });
    }
  }

  handlePodSyncs(pods: AdmittedPod[]): void {
    const start = this.c.clock.now();
    for (const pod of pods) this.c.podWorkers.updatePod({ updateType: 'SyncPodSync', pod, startTime: start });
  }

  /**
   * A probe result changed: readiness and startup are written into the status manager first; liveness
   * syncs the pod only on Failure (computePodActions then kills the container). Returns the pods synced.
   */
  handleProbeUpdate(which: 'liveness' | 'readiness' | 'startup', u: ProbeUpdate): number {
    const pod = this.c.podManager.getPodByUID(u.podUID);
    if (which === 'liveness' && u.result !== 'Failure') return 0;
    if (!pod) return 0; // "SyncLoop (probe): ignore irrelevant update"
    if (which === 'readiness')
      this.c.statusManager.setContainerReadiness(pod, u.containerID, u.result === 'Success');
    if (which === 'startup')
      this.c.statusManager.setContainerStartup(pod, u.containerID, u.result === 'Success');
    this.handlePodSyncs([pod]);
    return 1;
  }

  /** cleanUpContainersInPod: after ContainerDied, remove older exited instances (all, if content goes). */
  cleanUpContainersInPod(uid: string, exitedContainerID: string): void {
    const entry = this.c.podCache.get(uid);
    if (entry.error || !this.c.containerDeletor) return;
    const removeAll = this.c.podWorkers.shouldPodContentBeRemoved(uid);
    this.c.containerDeletor.deleteContainersInPod(exitedContainerID, entry.status, removeAll);
  }
}

function creation(p: AdmittedPod): number {
  return p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : 0;
}
