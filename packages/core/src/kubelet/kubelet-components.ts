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
import type { PodStatusRT, Runtime } from './container/runtime.ts';
import { RuntimeCache } from './container/runtime-cache.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import { KubeletSyncer } from './kubelet-sync.ts';
import type { ProbeResultsReader } from './kuberuntime/kuberuntime-manager.ts';
import { EventedPLEG, type EventedRuntime } from './pleg/evented.ts';
import { GenericPLEG } from './pleg/generic.ts';
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
}

/**
 * KubeletComponents: NewMainKubelet's wiring — every part of the engine built and connected, nothing started.
 * KubeletLoop (kubelet-loop.ts) adds the loops on top. Which PLEG: the generic one (relist every 1 s), or
 * with `config.eventedPleg` and a runtime that streams events, the evented one with the generic one
 * relisting every 300 s beside it until the stream fails for good (then 1 s again; see pleg/evented.ts).
 * The prober manager's liveness/startup results reach computePodActions through setProbeManagers.
 */
export class KubeletComponents {
  readonly config: KubeletConfiguration;
  protected readonly clock: Clock;
  protected readonly trace: TraceRecorder;
  protected readonly runtime: KubeletRuntime;
  protected readonly recorder: EventRecorder & { list(): Event[] };
  readonly podConfig: PodConfig;
  readonly podManager = new PodManager();
  readonly podCache = new PodCache();
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
  protected readonly random: () => number;
  protected readonly syncCh = new Channel<number>(1);
  protected readonly housekeepingCh = new Channel<number>(1);
  protected readonly plegCh: Channel<PodLifecycleEvent>;

  constructor(
    protected readonly deps: KubeletDeps,
    parts: KubeletParts,
  ) {
    this.config = { ...defaultKubeletConfiguration, ...deps.config };
    this.clock = deps.clock;
    this.trace = deps.trace;
    this.runtime = parts.runtime;
    this.recorder = parts.recorder;
    this.random = deps.random ?? Math.random;
    const c = this.config;
    this.podConfig = new PodConfig(this.clock, this.trace);
    this.workQueue = new BasicWorkQueue(this.clock);
    this.reasonCache = new ReasonCache(c.maxReasonCacheEntries);
    this.statusManager = new StatusManager(this.clock, this.trace);
    this.runtimeState = new RuntimeState(this.clock, c.maxWaitForContainerRuntimeMs);
    const rt = this.runtime;
    this.runtimeCache = new RuntimeCache(
      rt,
      this.clock,
      c.housekeepingPeriodMs + c.housekeepingWarningDurationMs,
    );
    const eventedRuntime: EventedRuntime | undefined =
      c.eventedPleg && rt.streamEvents && rt.generatePodStatus
        ? { streamEvents: rt.streamEvents.bind(rt), generatePodStatus: rt.generatePodStatus.bind(rt) }
        : undefined;
    const genericDuration = {
      relistPeriodMs: c.genericPlegRelistPeriodMs,
      relistThresholdMs: c.genericPlegRelistThresholdMs,
    };
    this.pleg = new GenericPLEG(
      rt,
      this.podCache,
      this.clock,
      this.trace,
      eventedRuntime
        ? { relistPeriodMs: c.eventedPlegRelistPeriodMs, relistThresholdMs: c.eventedPlegRelistThresholdMs }
        : genericDuration,
      c.plegChannelCapacity,
    );
    this.plegCh = this.pleg.watch();
    this.runtimeState.addHealthCheck('PLEG', () => this.pleg.healthy());
    if (eventedRuntime) {
      this.podCache.ignoreOlderWrites = true;
      this.eventedPleg = new EventedPLEG(eventedRuntime, this.pleg, this.podCache, this.clock, this.trace, {
        maxStreamRetries: c.eventedPlegMaxStreamRetries,
        fallbackRelistDuration: genericDuration,
      });
      const ev = this.eventedPleg;
      this.runtimeState.addHealthCheck('EventedPLEG', () => ev.healthy());
    }
    this.probeManager = new ProberManager({
      cri: deps.cri,
      clock: this.clock,
      trace: this.trace,
      recorder: this.recorder,
      random: this.random,
      ...(deps.netProber ? { netProber: deps.netProber } : {}),
      getPod: (uid) => this.podManager.getPodByUID(uid),
      getStatus: (uid) => this.statusManager.getPodStatus(uid),
    });
    rt.setProbeManagers?.(this.probeManager.livenessManager, this.probeManager.startupManager);
    this.activeDeadline = new ActiveDeadlineHandler(
      this.clock,
      (uid) => this.statusManager.getPodStatus(uid),
      this.recorder,
    );
    this.containerDeletor = rt.deleteContainer
      ? new PodContainerDeletor({ deleteContainer: rt.deleteContainer.bind(rt) })
      : undefined;
    const syncer = new KubeletSyncer({
      runtime: rt,
      statusManager: this.statusManager,
      reasonCache: this.reasonCache,
      recorder: this.recorder,
      runtimeState: this.runtimeState,
      probeManager: this.probeManager,
      podSyncHandlers: [this.activeDeadline],
    });
    this.podWorkers = new PodWorkers({
      syncer,
      workQueue: this.workQueue,
      podCache: this.podCache,
      clock: this.clock,
      trace: this.trace,
      recorder: this.recorder,
      random: this.random,
      config: {
        resyncIntervalMs: c.syncFrequencyMs,
        backOffPeriodMs: c.backOffPeriodMs,
        backOffOnTransientErrorPeriodMs: c.backOffOnTransientErrorPeriodMs,
        jitterFactor: c.workerJitterFactor,
      },
      onPodFinished: (uid) => {
        // as the status manager would: a deleted pod whose worker finished gets its final delete (grace 0)
        this.podConfig.finalDelete(uid);
      },
    });
  }
}
