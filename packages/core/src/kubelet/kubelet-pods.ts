import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodManager } from './config/pod-manager.ts';
import type { RuntimePod } from './container/runtime.ts';
import { isTerminalPhase } from './pod-ref.ts';
import type { PodWorkerSync, PodWorkers } from './pod-workers.ts';
import type { StatusManager } from './status/status-manager.ts';

export interface CleanupDeps {
  podManager: PodManager;
  podWorkers: PodWorkers;
  statusManager: StatusManager;
  runtime: { getPods(all: boolean): Promise<RuntimePod[]>; gcBackoff(): void };
  /**
   * the kubelet's runtimeCache of running pods. Housekeeping forces it fresh first (ForceUpdateIfOlder(now)):
   * a stale list would show a pod that just terminated as a running orphan and kill it again.
   */
  runtimeCache?: {
    getPods(): Promise<RuntimePod[]>;
    forceUpdateIfOlder(minExpectedCacheTime: number): Promise<void>;
  };
  /** the time housekeeping starts, for forceUpdateIfOlder */
  now?: () => number;
  /** stops probe workers of pods that are not possibly running */
  probeManager?: { cleanupPods(possiblyRunning: Set<string>): void };
  orphanKillGracePeriodSeconds: number;
}

export interface CleanupResult {
  forgotten: number;
  orphansKilled: number;
  restarted: number;
  /** set when the runtime could not be listed ("Error listing containers") */
  error?: string;
}

/** isAdmittedPodTerminal: the API or the status manager shows Succeeded/Failed. */
function isAdmittedPodTerminal(pod: AdmittedPod, statusManager: StatusManager): boolean {
  if (isTerminalPhase(pod.status?.phase)) return true;
  return isTerminalPhase(statusManager.getPodStatus(pod.metadata.uid)?.phase);
}

/** filterOutInactivePods: drop pods known terminated, and terminal pods not actively terminating. */
export function filterOutInactivePods(
  pods: readonly AdmittedPod[],
  podWorkers: PodWorkers,
  statusManager: StatusManager,
): AdmittedPod[] {
  return pods.filter((p) => {
    const uid = p.metadata.uid;
    if (podWorkers.isPodKnownTerminated(uid)) return false;
    if (isAdmittedPodTerminal(p, statusManager) && !podWorkers.isPodTerminationRequested(uid)) return false;
    return true;
  });
}

/**
 * HandlePodCleanups (kubelet_pods.go): housekeeping, every 2 s from the sync loop, which waits for it — so
 * everything here is quick apart from one runtime listing. In order: let the pod workers forget finished
 * pods (SyncKnownPods); list the running runtime pods (the runtime cache, forced fresh); stop probe workers of pods not possibly running
 * (neither syncing nor terminating); drop statuses of pods no longer desired; restart
 * desired pods the workers do not know (UID reuse); finalize terminal deleted pods the workers never saw;
 * kill running runtime pods nobody knows — only those wholly created by this engine (RuntimePod.managed),
 * never anything else on the node; GC the crash-loop backoff entries.
 */
export async function handlePodCleanups(kl: CleanupDeps): Promise<CleanupResult> {
  const { podManager, podWorkers, statusManager, runtime } = kl;
  const allPods = podManager.getPods();
  const before = podWorkers.size;
  const workingPods: Map<string, PodWorkerSync> = podWorkers.syncKnownPods(allPods);
  const result: CleanupResult = {
    forgotten: Math.max(0, before - podWorkers.size),
    orphansKilled: 0,
    restarted: 0,
  };

  let runningRuntimePods: RuntimePod[];
  try {
    if (kl.runtimeCache && kl.now) await kl.runtimeCache.forceUpdateIfOlder(kl.now());
    runningRuntimePods = await (kl.runtimeCache ? kl.runtimeCache.getPods() : runtime.getPods(false));
  } catch (e) {
    result.error = `Error listing containers: ${e instanceof Error ? e.message : String(e)}`;
    return result;
  }

  const possiblyRunning = new Set<string>();
  for (const [uid, w] of workingPods) {
    if (w.state === 'SyncPod' || w.state === 'TerminatingPod') possiblyRunning.add(uid);
  }
  kl.probeManager?.cleanupPods(possiblyRunning);

  statusManager.removeOrphanedStatuses(new Set(allPods.map((p) => p.metadata.uid)));

  const activePods = filterOutInactivePods(allPods, podWorkers, statusManager);
  for (const desired of activePods) {
    const uid = desired.metadata.uid;
    if (workingPods.has(uid)) continue;
    podWorkers.updatePod({ updateType: 'SyncPodCreate', pod: desired });
    workingPods.set(uid, { state: 'SyncPod', orphan: false, hasConfig: true, static: false });
    result.restarted++;
  }

  const running = new Set(runningRuntimePods.map((p) => p.id));
  for (const pod of allPods) {
    const uid = pod.metadata.uid;
    if (!pod.metadata.deletionTimestamp || !isAdmittedPodTerminal(pod, statusManager)) continue;
    if (workingPods.has(uid) || running.has(uid)) continue;
    podWorkers.updatePod({ updateType: 'SyncPodKill', pod });
    workingPods.set(uid, { state: 'TerminatingPod', orphan: false, hasConfig: true, static: false });
  }

  for (const rp of runningRuntimePods) {
    if (workingPods.has(rp.id) || !rp.managed) continue;
    podWorkers.updatePod({
      updateType: 'SyncPodKill',
      runningPod: rp,
      killPodOptions: { podTerminationGracePeriodSecondsOverride: kl.orphanKillGracePeriodSeconds },
    });
    workingPods.set(rp.id, { state: 'TerminatingPod', orphan: true, hasConfig: false, static: false });
    result.orphansKilled++;
  }

  runtime.gcBackoff();
  return result;
}
