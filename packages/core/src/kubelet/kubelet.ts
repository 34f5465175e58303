import type { Event, Pod } from '../api/v1.ts';
import type { LoopSource } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodConfig } from './config/config.ts';
import type { PodManager } from './config/pod-manager.ts';
import { defaultKubeletConfiguration, type KubeletConfiguration, type NodeInfo } from './configuration.ts';
import type { GCResult } from './container/container-gc.ts';
import type { RuntimePod } from './container/runtime.ts';
import type { RuntimeCache } from './container/runtime-cache.ts';
import { Recorder } from './events/recorder.ts';
import {
  type KubeletComponents,
  type KubeletDeps,
  type KubeletParts,
  newKubeletComponents,
} from './kubelet-components.ts';
import { PodHandlers } from './kubelet-handlers.ts';
import { SyncLoop } from './kubelet-loop.ts';
import { tracedCall } from './kuberuntime/instrumented-services.ts';
import { ContainerGC } from './kuberuntime/kuberuntime-gc.ts';
import type { PodStateProvider } from './kuberuntime/kuberuntime-gc-plan.ts';
import { KubeGenericRuntimeManager } from './kuberuntime/kuberuntime-manager.ts';
import type { EventedPLEG } from './pleg/evented.ts';
import type { PodWorkers } from './pod-workers.ts';
import type { ProberManager } from './prober/prober-manager.ts';
import type { StatusManager } from './status/status-manager.ts';

export type { KubeletComponents, KubeletDeps, KubeletParts } from './kubelet-components.ts';

/**
 * NewMainKubelet: the event recorder, the runtime manager and its container GC on the CRI, then every other
 * part wired to them (newKubeletComponents). Builds only; nothing runs until Kubelet.start.
 */
function newMainKubelet(deps: KubeletDeps): KubeletComponents {
  const config: KubeletConfiguration = { ...defaultKubeletConfiguration, ...deps.config };
  const recorder = new Recorder(deps.clock, deps.trace, config.nodeName);
  const runtime = new KubeGenericRuntimeManager({
    cri: deps.cri,
    clock: deps.clock,
    trace: deps.trace,
    recorder,
    config,
  });
  const containerGC = (podStateProvider: PodStateProvider) =>
    new ContainerGC({
      cri: deps.cri,
      call: tracedCall(deps.clock, deps.trace),
      clock: deps.clock,
      podStateProvider,
      ownershipLabel: config.ownershipLabel,
      podLogsDirectory: config.podLogsDirectory,
      minimumGracePeriodSeconds: config.minimumGracePeriodSeconds,
    });
  return newKubeletComponents(deps, { runtime, recorder, containerGC });
}

/**
 * Kubelet: the engine as the server, tests and benchmarks use it. It holds the parts (`components`, built by
 * newMainKubelet, or on given parts when `parts` is passed: tests' fake runtime and recorder), the sync
 * loop's handlers and the sync loop (kubelet-loop.ts, which states the loop's contract). The API's view
 * (addPod, getPods, nodeInfo, ...) never blocks: writes go through PodConfig to the loop.
 */
export class Kubelet {
  readonly components: KubeletComponents;
  readonly config: KubeletConfiguration;
  readonly podConfig: PodConfig;
  readonly podManager: PodManager;
  readonly statusManager: StatusManager;
  readonly runtimeCache: RuntimeCache;
  readonly podWorkers: PodWorkers;
  readonly probeManager: ProberManager;
  readonly eventedPleg: EventedPLEG | undefined;
  private readonly handlers: PodHandlers;
  private readonly loop: SyncLoop;

  constructor(deps: KubeletDeps, parts?: KubeletParts) {
    const c = parts ? newKubeletComponents(deps, parts) : newMainKubelet(deps);
    this.components = c;
    this.config = c.config;
    this.podConfig = c.podConfig;
    this.podManager = c.podManager;
    this.statusManager = c.statusManager;
    this.runtimeCache = c.runtimeCache;
    this.podWorkers = c.podWorkers;
    this.probeManager = c.probeManager;
    this.eventedPleg = c.eventedPleg;
    this.handlers = new PodHandlers(c);
    this.loop = new SyncLoop(c, this.handlers);
  }

  // ---- lifecycle (SyncLoop) ------------------------------------------------------------------------------

  /** Starts the loops (see SyncLoop.start) and the container GC; a second call while running does nothing. */
  start(): void {
    this.loop.start();
    this.components.containerGC?.start();
  }

  /** Stops every loop and timer; containers keep running (see SyncLoop.stop). */
  async stop(): Promise<void> {
    await Promise.all([this.loop.stop(), this.components.containerGC?.stop()]);
  }

  updateRuntimeUp(): Promise<void> {
    return this.loop.updateRuntimeUp();
  }

  /** One iteration by hand (tests): handles at most one ready source; null when none was ready. */
  syncLoopIteration(): Promise<LoopSource | null> {
    return this.loop.syncLoopIteration();
  }

  /** HandlePodCleanups, by hand (tests); traced like the loop's. */
  handlePodCleanups(): Promise<void> {
    return this.loop.housekeeping();
  }

  /** One container GC run, by hand (tests); traced like the periodic ones. Undefined without a GC. */
  garbageCollect(): Promise<GCResult | undefined> {
    return this.components.containerGC?.garbageCollect() ?? Promise.resolve(undefined);
  }

  relist(): Promise<void> {
    return this.components.pleg.relist();
  }

  // ---- the API's view ----------------------------------------------------------------------------------

  addPod(pod: Pod): void {
    this.podConfig.add(pod);
  }

  /** A replaced pod (PUT or PATCH, already validated as an update the API allows): an UPDATE to the loop. */
  updatePod(pod: Pod): void {
    this.podConfig.update(pod);
  }

  /**
   * Delete (PodConfig.delete): graceful, or at once with grace 0 or for a pod whose status is terminal.
   * `now` is when it was asked, the clock's time unless given.
   */
  deletePod(uid: string, gracePeriodSeconds?: number, now?: number): void {
    const phase = (this.statusManager.getPodStatus(uid) ?? this.podConfig.get(uid)?.status)?.phase;
    this.podConfig.delete(uid, gracePeriodSeconds, now, phase);
  }

  getPods(): AdmittedPod[] {
    return this.podConfig.pods().map((p) => this.withStatus(p));
  }

  getPod(namespace: string, name: string): AdmittedPod | undefined {
    const p = this.podConfig
      .pods()
      .find((x) => x.metadata.namespace === namespace && x.metadata.name === name);
    return p && this.withStatus(p);
  }

  getPodByUID(uid: string): AdmittedPod | undefined {
    const p = this.podConfig.get(uid);
    return p && this.withStatus(p);
  }

  getEvents(): Event[] {
    return this.components.recorder.list();
  }

  /**
   * Every pod the runtime has (GetPods(all=true)), ours and others': `managed` is false for sandboxes or
   * containers without our ownership label. Read-only; the engine never acts on unmanaged ones.
   */
  listRuntimePods(): Promise<RuntimePod[]> {
    return this.components.runtime.getPods(true);
  }

  nodeInfo(): NodeInfo {
    const { clock, config, deps, pleg, runtimeState } = this.components;
    const errors = runtimeState.reportedErrors();
    const [healthy, plegErr] = pleg.healthy();
    const v = this.loop.versionInfo;
    const speed = (clock as { speed?: number }).speed;
    return {
      nodeName: config.nodeName,
      runtime: {
        name: v?.runtime_name ?? '',
        version: v?.runtime_version ?? '',
        apiVersion: v?.runtime_api_version ?? '',
        endpoint: deps.runtimeEndpoint,
        ready: errors.length === 0,
        errors,
      },
      simulated: deps.simulated,
      pleg: {
        mode: this.eventedPleg?.mode ?? 'generic',
        healthy,
        lastRelist: pleg.lastRelistTime || null,
        message: plegErr ?? '',
      },
      sync: { lastIteration: this.loop.lastIteration },
      configuration: config,
      clock: { now: clock.now(), speed: typeof speed === 'number' ? speed : 1 },
    };
  }

  private withStatus(p: AdmittedPod): AdmittedPod {
    const status = this.statusManager.getPodStatus(p.metadata.uid) ?? p.status ?? { phase: 'Pending' };
    return { ...p, status: structuredClone(status) };
  }
}
