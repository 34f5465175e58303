import type { Event } from '../api/v1.ts';
import type { Clock } from '../clock/clock.ts';
import type {
  ContainerEventResponse,
  ContainerEventStream,
  CriRuntime,
  StatusResponse,
  VersionResponse,
} from '../cri/types.ts';
import type { TraceRecorder } from '../events/recorder.ts';
import { ActiveDeadlineHandler } from './active-deadline.ts';
import { PodConfig } from './config/config.ts';
import { PodManager } from './config/pod-manager.ts';
import { defaultKubeletConfiguration, type KubeletConfiguration } from './configuration.ts';
import { PodCache } from './container/cache.ts';
import {
  type ContainerGCOptions,
  defaultContainerGCOptions,
  RealContainerGC,
  type RuntimeGarbageCollector,
} from './container/container-gc.ts';
import type { PodStatusRT, Runtime } from './container/runtime.ts';
import { RuntimeCache } from './container/runtime-cache.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import { KubeletSyncer } from './kubelet-sync.ts';
import type { PodStateProvider } from './kuberuntime/kuberuntime-gc-plan.ts';
import type { ProbeResultsReader } from './kuberuntime/kuberuntime-manager.ts';
import type { EventedPLEG, EventedRuntime } from './pleg/evented.ts';
import type { GenericPLEG } from './pleg/generic.ts';
import { newPLEGs } from './pleg/new-plegs.ts';
import type { PodLifecycleEvent } from './pleg/pleg.ts';
import { type ContainerDeleter, PodContainerDeletor } from './pod-container-deletor.ts';
import { PodWorkers } from './pod-workers.ts';
import type { NetProber } from './prober/net-prober.ts';
import { ProberManager } from './prober/prober-manager.ts';
import { ReasonCache } from './reason-cache.ts';
import { RuntimeState } from './runtime-state.ts';
import { StatusManager } from './status/status-manager.ts';
import { Channel } from './util/channel.ts';
import { BasicWorkQueue } from './util/queue/work-queue.ts';

/** What the server passes to build a kubelet. */
export interface KubeletDeps {
  cri: CriRuntime;
  clock: Clock;
  trace: TraceRecorder;
  config?: Partial<KubeletConfiguration>;
  runtimeEndpoint: string;
  simulated: boolean;
  random?: () => number;
  /** how HTTP/TCP probes reach pods; the simulated node's pod IPs need its own (default: the real network) */
  netProber?: NetProber;
  /** container GC's period and policy (default: the kubelet's 1 min; MinAge 0, 1 per container, no cap) */
  containerGC?: Partial<ContainerGCOptions>;
}

/**
 * The runtime manager as the kubelet uses it: the kubecontainer Runtime plus status/version/backoff GC. The
 * optional parts switch features on when present: probe-driven kills (setProbeManagers), the ContainerDied
 * cleanup (deleteContainer), the evented PLEG (streamEvents + generatePodStatus).
 */
export interface KubeletRuntime extends Runtime {
  version(): Promise<VersionResponse>;
  status(): Promise<StatusResponse>;
  gcBackoff(): void;
  setProbeManagers?(liveness: ProbeResultsReader, startup: ProbeResultsReader): void;
  deleteContainer?: ContainerDeleter['deleteContainer'];
  streamEvents?(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream;
  generatePodStatus?(ev: ContainerEventResponse): PodStatusRT | undefined;
}

/** The parts NewMainKubelet builds from the CRI (kubelet.ts); tests pass fakes. */
export interface KubeletParts {
  runtime: KubeletRuntime;
  recorder: EventRecorder & { list(): Event[] };
  /** the runtime's GarbageCollect, given the pod workers' answers; without it no container GC runs */
  containerGC?: (podState: PodStateProvider) => RuntimeGarbageCollector;
}

/**
 * KubeletComponents: every part of the engine, built and connected by newKubeletComponents, nothing started.
 * Plain parts, no behaviour of its own: the sync loop (kubelet-loop.ts), the config handlers
 * (kubelet-handlers.ts) and the Kubelet facade (kubelet.ts) each hold this one object and use its parts.
 */
export interface KubeletComponents {
  readonly deps: KubeletDeps;
  readonly config: KubeletConfiguration;
  readonly clock: Clock;
  readonly trace: TraceRecorder;
  readonly runtime: KubeletRuntime;
  readonly recorder: EventRecorder & { list(): Event[] };
  /** [0, 1) source for the loop's select and the workers' jitter */
  readonly random: () => number;
  readonly podConfig: PodConfig;
  readonly podManager: PodManager;
  readonly podCache: PodCache;
  /** Running pods for housekeeping, refreshed every housekeepingPeriod + housekeepingWarningDuration. */
  readonly runtimeCache: RuntimeCache;
  readonly workQueue: BasicWorkQueue;
  readonly reasonCache: ReasonCache;
  readonly statusManager: StatusManager;
  readonly runtimeState: RuntimeState;
  readonly pleg: GenericPLEG;
  readonly eventedPleg: EventedPLEG | undefined;
  readonly podWorkers: PodWorkers;
  readonly probeManager: ProberManager;
  readonly activeDeadline: ActiveDeadlineHandler;
  readonly containerDeletor: PodContainerDeletor | undefined;
  /** the periodic container GC (StartGarbageCollection), when the runtime has one */
  readonly containerGC: RealContainerGC | undefined;
  /** the sync ticker's and the housekeeping ticker's channels (capacity 1: a missed tick is dropped) */
  readonly syncCh: Channel<number>;
  readonly housekeepingCh: Channel<number>;
  /** the PLEG's events, as the sync loop receives them */
  readonly plegCh: Channel<PodLifecycleEvent>;
}

/**
 * NewMainKubelet's wiring on given parts (kubelet.ts passes the runtime manager and event recorder it built
 * on the CRI; tests pass fakes). Which PLEG: the generic one (relist every 1 s), or with
 * `config.eventedPleg` and a runtime that streams events, the evented one with the generic one relisting
 * every 300 s beside it until the stream fails for good (then 1 s again; see pleg/evented.ts). The prober
 * manager's liveness/startup results reach computePodActions through setProbeManagers. Starts nothing.
 */
export function newKubeletComponents(deps: KubeletDeps, parts: KubeletParts): KubeletComponents {
  const c: KubeletConfiguration = { ...defaultKubeletConfiguration, ...deps.config };
  const { clock, trace } = deps;
  const { runtime: rt, recorder } = parts;
  const random = deps.random ?? Math.random;
  const podConfig = new PodConfig(clock, trace);
  const podManager = new PodManager();
  const podCache = new PodCache();
  const workQueue = new BasicWorkQueue(clock);
  const reasonCache = new ReasonCache(c.maxReasonCacheEntries);
  const statusManager = new StatusManager(clock, trace);
  const runtimeState = new RuntimeState(clock, c.maxWaitForContainerRuntimeMs);
  const runtimeCache = new RuntimeCache(rt, clock, c.housekeepingPeriodMs + c.housekeepingWarningDurationMs);
  const eventedRuntime: EventedRuntime | undefined =
    c.eventedPleg && rt.streamEvents && rt.generatePodStatus
      ? { streamEvents: rt.streamEvents.bind(rt), generatePodStatus: rt.generatePodStatus.bind(rt) }
      : undefined;
  const { pleg, eventedPleg } = newPLEGs(rt, eventedRuntime, podCache, { clock, trace }, c);
  const plegCh = pleg.watch();
  runtimeState.addHealthCheck('PLEG', () => pleg.healthy());
  if (eventedPleg) runtimeState.addHealthCheck('EventedPLEG', () => eventedPleg.healthy());
  const probeManager = new ProberManager({
    cri: deps.cri,
    clock,
    trace,
    recorder,
    random,
    ...(deps.netProber ? { netProber: deps.netProber } : {}),
    getPod: (uid) => podManager.getPodByUID(uid),
    getStatus: (uid) => statusManager.getPodStatus(uid),
  });
  rt.setProbeManagers?.(probeManager.livenessManager, probeManager.startupManager);
  const activeDeadline = new ActiveDeadlineHandler(clock, (uid) => statusManager.getPodStatus(uid), recorder);
  const containerDeletor = rt.deleteContainer
    ? new PodContainerDeletor({ deleteContainer: rt.deleteContainer.bind(rt) })
    : undefined;
  const syncer = new KubeletSyncer({
    runtime: rt,
    statusManager,
    reasonCache,
    recorder,
    runtimeState,
    probeManager,
    podSyncHandlers: [activeDeadline],
  });
  const podWorkers = new PodWorkers({
    syncer,
    workQueue,
    podCache,
    clock,
    trace,
    recorder,
    random,
    config: {
      resyncIntervalMs: c.syncFrequencyMs,
      backOffPeriodMs: c.backOffPeriodMs,
      backOffOnTransientErrorPeriodMs: c.backOffOnTransientErrorPeriodMs,
      jitterFactor: c.workerJitterFactor,
    },
    // as the status manager would: a deleted pod whose worker finished gets its final delete (grace 0)
    onPodFinished: (uid) => podConfig.finalDelete(uid),
  });
  // one config source, the in-process API, which holds every pod (restored ones too) before the engine starts
  const containerGC =
    parts.containerGC &&
    new RealContainerGC({
      runtime: parts.containerGC(podWorkers),
      sourcesReady: () => true,
      clock,
      trace,
      options: { ...defaultContainerGCOptions, ...deps.containerGC },
    });
  return {
    deps,
    config: c,
    clock,
    trace,
    runtime: rt,
    recorder,
    random,
    podConfig,
    podManager,
    podCache,
    runtimeCache,
    workQueue,
    reasonCache,
    statusManager,
    runtimeState,
    pleg,
    eventedPleg,
    podWorkers,
    probeManager,
    activeDeadline,
    containerDeletor,
    containerGC,
    syncCh: new Channel<number>(1),
    housekeepingCh: new Channel<number>(1),
    plegCh,
  };
}
