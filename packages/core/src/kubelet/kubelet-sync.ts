import type { Pod, PodStatus } from '../api/v1.ts';
import { abortError } from '../clock/clock.ts';
import type { UpdateType } from '../events/trace.ts';
import type { PodSyncHandler } from './active-deadline.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodStatusRT, Runtime, RuntimePod } from './container/runtime.ts';
import { syncResultError } from './container/runtime.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import { Reasons } from './events/event-recorder.ts';
import { convertPodStatusToRunningPod } from './kuberuntime/util.ts';
import { isTerminalPhase } from './pod-ref.ts';
import { runningPodToAPIPod } from './pod-sync-status.ts';
import { NetworkNotReadyErrorMsg, PodSyncError, type PodSyncer, type SyncOutcome } from './pod-workers.ts';
import type { ReasonCache } from './reason-cache.ts';
import type { RuntimeState } from './runtime-state.ts';
import { generateAPIPodStatus, type ProbeStatusUpdater } from './status/generate.ts';
import type { StatusManager } from './status/status-manager.ts';

/** The prober manager as the sync functions use it (prober/prober-manager.ts). */
interface ProbeManagerHooks extends ProbeStatusUpdater {
  addPod(pod: Pod): void;
  stopLivenessAndStartup(pod: Pod): void;
  removePod(pod: Pod): void;
}

export interface KubeletSyncDeps {
  runtime: Runtime;
  statusManager: StatusManager;
  reasonCache: ReasonCache;
  recorder: EventRecorder;
  runtimeState: RuntimeState;
  /** absent: no probe workers (running containers are started and ready) */
  probeManager?: ProbeManagerHooks;
  /** PodSyncHandlers (the active deadline) consulted by generateAPIPodStatus */
  podSyncHandlers?: readonly PodSyncHandler[];
}

/**
 * The kubelet's sync functions (kubelet.go SyncPod / SyncTerminatingPod / SyncTerminatingRuntimePod /
 * SyncTerminatedPod). Called only by the pod workers, one call at a time per pod; they may wait as long as
 * the runtime takes. Failure is a thrown error (PodSyncError when there are runtime results to show).
 */
export class KubeletSyncer implements PodSyncer {
  constructor(private readonly deps: KubeletSyncDeps) {}

  generateAPIPodStatus(pod: AdmittedPod, podStatus: PodStatusRT, podIsTerminal: boolean): PodStatus {
    const { statusManager, reasonCache, probeManager, podSyncHandlers } = this.deps;
    return generateAPIPodStatus(pod, podStatus, podIsTerminal, {
      cachedStatus: statusManager.getPodStatus(pod.metadata.uid),
      reasonCache,
      ...(probeManager ? { prober: probeManager } : {}),
      ...(podSyncHandlers ? { podSyncHandlers } : {}),
    });
  }

  /** SyncPod: converge a desired pod towards its spec; isTerminal when the phase is Succeeded/Failed. */
  async syncPod(
    _signal: AbortSignal,
    _updateType: UpdateType,
    pod: AdmittedPod,
    _mirrorPod: Pod | undefined,
    podStatus: PodStatusRT,
  ): Promise<SyncOutcome> {
    const { statusManager, runtime, reasonCache, recorder, runtimeState } = this.deps;
    const apiPodStatus = this.generateAPIPodStatus(pod, podStatus, false);
    const status: PodStatusRT = { ...podStatus, ips: (apiPodStatus.podIPs ?? []).map((p) => p.ip) };

    if (isTerminalPhase(apiPodStatus.phase)) {
      statusManager.setPodStatus(pod, apiPodStatus);
      return { isTerminal: true };
    }
    statusManager.setPodStatus(pod, apiPodStatus);

    const netErr = runtimeState.networkErrors();
    if (netErr && !pod.spec.hostNetwork) {
      recorder.event(pod, 'Warning', Reasons.NetworkNotReady, `${NetworkNotReadyErrorMsg}: ${netErr}`);
      throw new Error(`${NetworkNotReadyErrorMsg}: ${netErr}`);
    }

    this.deps.probeManager?.addPod(pod);

    // the runtime half runs without cancellation: a kill arriving now waits for it to finish
    const result = await runtime.syncPod(pod, status);
    reasonCache.update(pod.metadata.uid, result);
    const err = syncResultError(result);
    // Meant to swallow pure CrashLoopBackOff/ImagePullBackOff failures, but the ConfigPodSandbox result
    // (no error) is always present, so the error is returned anyway (kubernetes#123602).
    if (err) {
      for (const r of result.actions) {
        if (r.error !== 'CrashLoopBackOff' && r.error !== 'ImagePullBackOff')
          throw new PodSyncError(err, result);
      }
      return { isTerminal: false, result };
    }
    return { isTerminal: false, result };
  }

  /**
   * SyncTerminatingPod: stop every container within the grace period, then record the final status.
   * Liveness and startup workers stop first (a dying container must not be restarted for a probe); every
   * probe worker of the pod goes once the kill succeeded. A shortened grace period aborts `signal`: the
   * kill is abandoned (AbortError) and the pod worker runs this again with the new grace.
   */
  async syncTerminatingPod(
    signal: AbortSignal,
    pod: AdmittedPod,
    podStatus: PodStatusRT,
    gracePeriod: number | undefined,
    podStatusFn: ((s: PodStatus) => void) | undefined,
  ): Promise<SyncOutcome> {
    const { statusManager, runtime, recorder, probeManager } = this.deps;
    const apiPodStatus = this.generateAPIPodStatus(pod, podStatus, false);
    podStatusFn?.(apiPodStatus);
    statusManager.setPodStatus(pod, apiPodStatus);
    if (signal.aborted) throw abortError();

    probeManager?.stopLivenessAndStartup(pod);
    const running = convertPodStatusToRunningPod(podStatus);
    const result = await runtime.killPod(pod, running, gracePeriod, signal);
    const killErr = syncResultError(result);
    if (killErr) {
      recorder.event(pod, 'Warning', Reasons.FailedToKillPod, `error killing pod: ${killErr}`);
      throw new PodSyncError(killErr, result);
    }
    probeManager?.removePod(pod);

    const { uid, name, namespace } = pod.metadata;
    const stopped = await runtime.getPodStatus(uid, name, namespace);
    // keep the IPs from before stopping (preserveDataFromBeforeStopping)
    const stoppedStatus: PodStatusRT = { ...stopped, ips: podStatus.ips };
    const stillRunning = stoppedStatus.containerStatuses
      .filter((c) => c.state === 'running')
      .map((c) => c.id);
    if (stillRunning.length > 0) {
      throw new PodSyncError(
        `detected running containers after a successful KillPod, CRI violation: [${stillRunning.join(' ')}]`,
        result,
      );
    }
    statusManager.setPodStatus(pod, this.generateAPIPodStatus(pod, stoppedStatus, true));
    return { result };
  }

  /** SyncTerminatingRuntimePod: an orphan with no config — kill at grace 1, write no status. */
  async syncTerminatingRuntimePod(_signal: AbortSignal, runningPod: RuntimePod): Promise<SyncOutcome> {
    const result = await this.deps.runtime.killPod(undefined, runningPod, 1);
    const err = syncResultError(result);
    if (err) {
      this.deps.recorder.event(
        runningPodToAPIPod(runningPod),
        'Warning',
        Reasons.FailedToKillPod,
        `error killing pod: ${err}`,
      );
      throw new PodSyncError(err, result);
    }
    return { result };
  }

  /** SyncTerminatedPod: final status; resources would be released here (volumes, cgroups). */
  async syncTerminatedPod(
    _signal: AbortSignal,
    pod: AdmittedPod,
    podStatus: PodStatusRT,
  ): Promise<SyncOutcome> {
    const { statusManager } = this.deps;
    statusManager.setPodStatus(pod, this.generateAPIPodStatus(pod, podStatus, true));
    statusManager.terminatePod(pod);
    return {};
  }
}
