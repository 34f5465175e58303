/**
 * KubeGenericRuntimeManager: the kubelet's container runtime manager (kuberuntime_manager.go) over a CRI
 * runtime — the gRPC client to containerd or the simulated node.
 *
 *   getPods / getPodStatus   what the runtime has, grouped by the pod-UID label (PLEG relist, housekeeping)
 *   syncPod                  computePodActions, then carry the plan out (pod worker, SyncPod)
 *   killPod                  stop containers in parallel, then every sandbox (pod worker, termination)
 *
 * Called from pod workers (one call at a time per pod) and from the PLEG/housekeeping; calls block as long
 * as the CRI takes, including grace periods. Every CRI call is traced as `runtime.call`. The crash-loop
 * backoff lives here (in memory, as in the kubelet: lost on restart); housekeeping calls gcBackoff().
 */
import type { Container, Pod } from '../../api/v1.ts';
import { abortError, type Clock } from '../../clock/clock.ts';
import {
  type ContainerEventResponse,
  type ContainerEventStream,
  type CriRuntime,
  isNotFound,
  nsToMs,
  type StatusResponse,
  type VersionResponse,
} from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { ProbeResult, SyncAction } from '../../events/trace.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import type {
  ContainerStatusRT,
  PodStatusRT,
  PodSyncResult,
  Runtime,
  RuntimePod,
} from '../container/runtime.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import { Reasons } from '../events/event-recorder.ts';
import { ImageManager } from '../images/image-manager.ts';
import { Backoff, expireAfter } from '../util/flowcontrol/backoff.ts';
import { formatGoDuration } from '../util/flowcontrol/go-duration.ts';
import { computePodActions, summarize } from './compute-pod-actions.ts';
import { generatePodStatus, sandboxState, toKubeContainerStatus } from './convert.ts';
import { hashContainerHex } from './hash.ts';
import { type CallContext, type TracedCall, tracedCall } from './instrumented-services.ts';
import { killContainer, startContainer } from './kuberuntime-container.ts';
import {
  pruneInitContainersBeforeStart,
  purgeInitContainers,
  removeContainer,
  removeOldExitedContainers,
} from './kuberuntime-gc.ts';
import {
  createPodSandbox,
  determinePodSandboxIPs,
  errText,
  generatePodSandboxConfig,
} from './kuberuntime-sandbox.ts';
import { getContainerInfoFromLabels, KubernetesPodUIDLabel, podNamespace } from './labels.ts';
import type { LogDirReader, RuntimeContext } from './runtime-context.ts';
import { RuntimePodGrouper } from './runtime-pods.ts';
import {
  cmpNsDesc,
  containerFieldPath,
  convertPodStatusToRunningPod,
  formatPod,
  isRestartableInitContainer,
} from './util.ts';

const ErrCrashLoopBackOff = 'CrashLoopBackOff';
const ErrKillContainer = 'KillContainerError';
const ErrCreatePodSandbox = 'CreatePodSandboxError';
const ErrConfigPodSandbox = 'ConfigPodSandboxError';
const ErrKillPodSandbox = 'KillPodSandboxError';

/** The prober's result managers, read by computePodActions. */
export interface ProbeResultsReader {
  get(containerID: string): ProbeResult | undefined;
}

export interface KubeGenericRuntimeManagerDeps {
  cri: CriRuntime;
  clock: Clock;
  trace: TraceRecorder;
  recorder: EventRecorder;
  config: KubeletConfiguration;
  livenessManager?: ProbeResultsReader;
  startupManager?: ProbeResultsReader;
  /** pod workers: a sandbox failure of a pod being terminated is not an error */
  podStateProvider?: { isPodTerminationRequested(uid: string): boolean };
  logs?: LogDirReader;
}

export class KubeGenericRuntimeManager implements Runtime {
  readonly backOff: Backoff;
  readonly imageManager: ImageManager;
  private readonly call: TracedCall;
  private readonly ctx: RuntimeContext;
  private readonly grouper: RuntimePodGrouper;

  constructor(private readonly deps: KubeGenericRuntimeManagerDeps) {
    const { clock, config } = deps;
    this.call = tracedCall(clock, deps.trace);
    this.grouper = new RuntimePodGrouper(config.ownershipLabel);
    this.backOff = new Backoff(
      clock,
      config.containerBackOffPeriodMs,
      config.maxContainerBackOffMs,
      expireAfter(config.containerBackOffResetMs),
    );
    this.imageManager = new ImageManager({ ...deps, call: this.call });
    this.ctx = {
      ...deps,
      call: this.call,
      imageManager: this.imageManager,
      backOff: this.backOff,
      podRef: (pod: Pod) => ({
        podUID: pod.metadata.uid ?? '',
        pod: `${podNamespace(pod)}/${pod.metadata.name}`,
      }),
    };
  }

  /** Wires the prober once it exists (it is built after the runtime). */
  setProbeManagers(liveness: ProbeResultsReader, startup: ProbeResultsReader): void {
    this.deps.livenessManager = liveness;
    this.deps.startupManager = startup;
  }

  /** The runtime's name from Version ("containerd"): the type part of container IDs (`containerd://<id>`). */
  private runtimeName = '';

  async version(): Promise<VersionResponse> {
    const v = await this.call('Version', {}, () => this.deps.cri.version());
    this.runtimeName = v.runtime_name;
    return v;
  }

  status(): Promise<StatusResponse> {
    return this.call('Status', {}, () => this.deps.cri.status());
  }

  /** Housekeeping: drop crash-loop entries idle longer than the reset period. */
  gcBackoff(): number {
    return this.backOff.gc();
  }

  /** GetContainerEvents for the evented PLEG. */
  streamEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream {
    return this.deps.cri.getContainerEvents(onEvent, onEnd);
  }

  /** GeneratePodStatus: the pod status carried by one GetContainerEvents event (evented PLEG). */
  generatePodStatus(event: ContainerEventResponse): PodStatusRT | undefined {
    return generatePodStatus(event);
  }

  /**
   * DeleteContainer (the pod container deletor's worker): removeContainer, status first. A container already
   * gone rejects with the runtime's NotFound from ContainerStatus; the deletor logs it and goes on.
   */
  deleteContainer(containerID: string, ref: CallContext = {}): Promise<void> {
    return removeContainer(this.ctx, containerID, ref);
  }

  /** The ContainerDied cleanup (pod container deletor): keep the newest exited instance of that name. */
  removeOldExitedContainers(podUID: string, containerName: string): Promise<string[]> {
    return removeOldExitedContainers(this.ctx, podUID, containerName);
  }

  async getPods(all: boolean): Promise<RuntimePod[]> {
    const { cri } = this.deps;
    const sandboxes = await this.call('ListPodSandbox', {}, () =>
      cri.listPodSandbox(all ? {} : { state: { state: 'SANDBOX_READY' } }),
    );
    const containers = await this.call('ListContainers', {}, () =>
      cri.listContainers(all ? {} : { state: { state: 'CONTAINER_RUNNING' } }),
    );
    return this.grouper.group(sandboxes, containers);
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<PodStatusRT> {
    const { cri } = this.deps;
    const ref: CallContext = { podUID: uid, pod: `${namespace}/${name}` };
    const list = await this.call('ListPodSandbox', ref, () =>
      cri.listPodSandbox({ label_selector: { [KubernetesPodUIDLabel]: uid } }),
    );
    list.sort((a, b) => cmpNsDesc(a.created_at, b.created_at));
    const status: PodStatusRT = {
      id: uid,
      name,
      namespace,
      ips: [],
      containerStatuses: [],
      sandboxStatuses: [],
      timestamp: 0,
      runtimeName: this.runtimeName,
    };
    for (const [idx, s] of list.entries()) {
      let resp: Awaited<ReturnType<CriRuntime['podSandboxStatus']>>;
      try {
        resp = await this.call('PodSandboxStatus', { ...ref, attempt: s.metadata?.attempt ?? 0 }, () =>
          cri.podSandboxStatus(s.id),
        );
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      const st = resp.status;
      if (!st) throw new Error('pod sandbox status is nil');
      status.sandboxStatuses.push({
        id: st.id,
        state: sandboxState(st.state),
        attempt: st.metadata?.attempt ?? 0,
        createdAt: nsToMs(st.created_at),
        ip: st.network?.ip ?? '',
        hostNetwork: st.linux?.namespaces?.options?.network === 'NODE',
      });
      if (idx === 0 && st.state === 'SANDBOX_READY') status.ips = determinePodSandboxIPs(st);
    }
    const containers = await this.call('ListContainers', ref, () =>
      cri.listContainers({ label_selector: { [KubernetesPodUIDLabel]: uid } }),
    );
    const statuses: { created: string; s: ContainerStatusRT }[] = [];
    for (const c of containers) {
      let resp: Awaited<ReturnType<CriRuntime['containerStatus']>>;
      try {
        resp = await this.call(
          'ContainerStatus',
          { ...ref, container: getContainerInfoFromLabels(c.labels).containerName || c.metadata?.name },
          () => cri.containerStatus(c.id),
        );
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      const s = resp.status;
      if (!s) throw new Error('container status is nil');
      statuses.push({ created: s.created_at, s: toKubeContainerStatus(s) });
    }
    statuses.sort((a, b) => cmpNsDesc(a.created, b.created));
    status.containerStatuses = statuses.map((x) => x.s);
    status.timestamp = this.deps.clock.now();
    return status;
  }

  async syncPod(pod: Pod, podStatus: PodStatusRT): Promise<PodSyncResult> {
    const { recorder, cri } = this.deps;
    const ctx = this.ctx;
    const actions: SyncAction[] = [];
    const changes = computePodActions(pod, podStatus, {
      livenessResult: (id) => this.deps.livenessManager?.get(id),
      startupResult: (id) => this.deps.startupManager?.get(id),
      now: this.deps.clock.now(),
    });
    const result: PodSyncResult = { actions, plan: summarize(pod, changes) };

    if (changes.createSandbox && changes.sandboxID !== '') {
      recorder.event(
        pod,
        'Normal',
        Reasons.SandboxChanged,
        'Pod sandbox changed, it will be killed and re-created.',
      );
    }

    if (changes.killPod) {
      const kill = await this.killPodWithSyncResult(pod, convertPodStatusToRunningPod(podStatus));
      actions.push(...kill.actions);
      if (kill.actions.some((a) => a.error)) return result;
      if (changes.createSandbox) await purgeInitContainers(ctx, pod, podStatus);
    } else {
      for (const [id, info] of changes.containersToKill) {
        const r: SyncAction = { action: 'KillContainer', target: info.name };
        actions.push(r);
        try {
          await killContainer(ctx, pod, id, info.name, info.message, info.reason);
        } catch (err) {
          r.error = ErrKillContainer;
          r.message = errText(err);
          return result;
        }
      }
    }

    await pruneInitContainersBeforeStart(ctx, pod, podStatus);

    let podSandboxID = changes.sandboxID;
    if (changes.createSandbox) {
      const r: SyncAction = { action: 'CreatePodSandbox', target: formatPod(pod) };
      actions.push(r);
      const created = await createPodSandbox(ctx, pod, changes.attempt);
      if ('err' in created) {
        if (this.deps.podStateProvider?.isPodTerminationRequested(pod.metadata.uid ?? '')) return result;
        r.error = ErrCreatePodSandbox;
        r.message = created.message;
        recorder.event(
          pod,
          'Warning',
          Reasons.FailedCreatePodSandBox,
          `Failed to create pod sandbox: ${errText(created.err)}`,
        );
        return result;
      }
      podSandboxID = created.id;
      try {
        const st = await this.call('PodSandboxStatus', { ...ctx.podRef(pod), attempt: changes.attempt }, () =>
          cri.podSandboxStatus(podSandboxID),
        );
        if (!st.status) {
          result.syncError = 'pod sandbox status is nil';
          return result;
        }
      } catch (err) {
        recorder.event(
          pod,
          'Warning',
          Reasons.FailedStatusPodSandBox,
          `Unable to get pod sandbox status: ${errText(err)}`,
        );
        result.syncError = errText(err);
        return result;
      }
    }

    const configResult: SyncAction = { action: 'ConfigPodSandbox', target: podSandboxID };
    actions.push(configResult);
    let sandboxConfig: ReturnType<typeof generatePodSandboxConfig>;
    try {
      sandboxConfig = generatePodSandboxConfig(ctx, pod, changes.attempt);
    } catch (err) {
      configResult.error = ErrConfigPodSandbox;
      configResult.message = `GeneratePodSandboxConfig for pod "${formatPod(pod)}" failed: ${errText(err)}`;
      return result;
    }

    const start = async (container: Container): Promise<boolean> => {
      const r: SyncAction = { action: 'StartContainer', target: container.name };
      actions.push(r);
      const backoff = this.doBackOff(pod, container, podStatus);
      if (backoff) {
        r.error = ErrCrashLoopBackOff;
        r.message = backoff;
        return false;
      }
      const out = await startContainer(ctx, podSandboxID, sandboxConfig, container, pod, podStatus);
      if (out.error !== undefined) {
        r.error = out.error;
        r.message = out.message;
        return false;
      }
      return true;
    };

    const init = pod.spec.initContainers ?? [];
    if (!changes.handleRestartableInitContainers) {
      if (changes.nextInitContainerToStart && !(await start(changes.nextInitContainerToStart))) return result;
    } else {
      for (const idx of changes.initContainersToStart) {
        const c = init[idx];
        if (!c) continue;
        if (!(await start(c)) && !isRestartableInitContainer(c)) return result;
      }
    }
    for (const idx of changes.containersToStart) {
      const c = pod.spec.containers[idx];
      if (c) await start(c);
    }
    return result;
  }

  /**
   * doBackOff: undefined when the container may start now (and the backoff stepped), else the
   * CrashLoopBackOff message. Only an exited instance of the container puts it in backoff.
   */
  private doBackOff(pod: Pod, container: Container, podStatus: PodStatusRT): string | undefined {
    const last = podStatus.containerStatuses.find((c) => c.name === container.name && c.state === 'exited');
    if (!last) return undefined;
    const key = getStableKey(pod, container);
    const ts = last.finishedAt;
    if (this.backOff.isInBackOffSince(key, ts)) {
      const ns = podNamespace(pod);
      this.deps.recorder.event(
        pod,
        'Warning',
        Reasons.BackOffStartContainer,
        `Back-off restarting failed container ${container.name} in pod ${formatPod(pod)}`,
        containerFieldPath(pod, container.name),
      );
      const delay = this.backOff.get(key);
      this.deps.trace.record({
        type: 'backoff',
        kind: 'container',
        podUID: pod.metadata.uid ?? '',
        pod: `${ns}/${pod.metadata.name}`,
        container: container.name,
        key,
        delayS: delay / 1000,
        until: ts + delay,
        exitCode: last.exitCode,
        restartCount: last.restartCount,
      });
      return `back-off ${formatGoDuration(delay)} restarting failed container=${container.name} pod=${formatPod(pod)}`;
    }
    this.backOff.next(key, ts);
    return undefined;
  }

  killPod(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride?: number,
    signal?: AbortSignal,
  ): Promise<PodSyncResult> {
    return this.killPodWithSyncResult(pod, runningPod, gracePeriodOverride, signal);
  }

  /**
   * killPodWithSyncResult: stop the pod's non-exited containers in parallel, then StopPodSandbox on every
   * sandbox (NotFound ignored). Sandboxes and containers stay for GC to remove. An aborted signal (grace
   * shortened) abandons the StopContainer waits and rejects with an AbortError before any sandbox is stopped.
   */
  private async killPodWithSyncResult(
    pod: Pod | undefined,
    runningPod: RuntimePod,
    gracePeriodOverride?: number,
    signal?: AbortSignal,
  ): Promise<PodSyncResult> {
    const actions: SyncAction[] = [];
    const toKill = runningPod.containers.filter((c) => c.state !== 'exited');
    const results = await Promise.all(
      toKill.map(async (c): Promise<SyncAction> => {
        const r: SyncAction = { action: 'KillContainer', target: c.name };
        try {
          await killContainer(this.ctx, pod, c.id, c.name, '', 'Unknown', gracePeriodOverride, signal);
        } catch (err) {
          if (err instanceof Error && err.name === 'AbortError') return r;
          r.error = ErrKillContainer;
          r.message = errText(err);
        }
        return r;
      }),
    );
    if (signal?.aborted) throw abortError();
    actions.push(...results);
    const sandboxResult: SyncAction = { action: 'KillPodSandbox', target: runningPod.id };
    actions.push(sandboxResult);
    const ref: CallContext = { podUID: runningPod.id, pod: `${runningPod.namespace}/${runningPod.name}` };
    for (const s of runningPod.sandboxes) {
      try {
        await this.call('StopPodSandbox', { ...ref, attempt: s.attempt }, () =>
          this.deps.cri.stopPodSandbox(s.id),
        );
      } catch (err) {
        if (isNotFound(err)) continue;
        sandboxResult.error = ErrKillPodSandbox;
        sandboxResult.message = errText(err);
      }
    }
    return { actions };
  }
}

/** getStableKey: the crash-loop backoff key, `<pod>_<ns>_<uid>_<container>_<hash>`. */
function getStableKey(pod: Pod, container: Container): string {
  return `${pod.metadata.name}_${podNamespace(pod)}_${pod.metadata.uid ?? ''}_${container.name}_${hashContainerHex(container)}`;
}
