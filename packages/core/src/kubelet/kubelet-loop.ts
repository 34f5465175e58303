import type { Event, Pod } from '../api/v1.ts';
import type { Clock, Timer } from '../clock/clock.ts';
import type { CriRuntime, StatusResponse, VersionResponse } from '../cri/types.ts';
import type { TraceRecorder } from '../events/recorder.ts';
import type { LoopSource } from '../events/trace.ts';
import { PodConfig, type PodUpdate } from './config/config.ts';
import { PodManager } from './config/pod-manager.ts';
import { defaultKubeletConfiguration, type KubeletConfiguration, type NodeInfo } from './configuration.ts';
import { PodCache } from './container/cache.ts';
import type { Runtime } from './container/runtime.ts';
import type { EventRecorder } from './events/event-recorder.ts';
import { handlePodCleanups } from './kubelet-pods.ts';
import { KubeletSyncer } from './kubelet-sync.ts';
import { GenericPLEG } from './pleg/generic.ts';
import { isSyncPodWorthy, type PodLifecycleEvent } from './pleg/pleg.ts';
import { PodWorkers } from './pod-workers.ts';
import { ReasonCache } from './reason-cache.ts';
import { RuntimeState } from './runtime-state.ts';
import { StatusManager } from './status/status-manager.ts';
import { Channel, selectReady } from './util/channel.ts';
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
}

/** The runtime manager as the kubelet uses it: the kubecontainer Runtime plus status/version/backoff GC. */
export interface KubeletRuntime extends Runtime {
  version(): Promise<VersionResponse>;
  status(): Promise<StatusResponse>;
  gcBackoff(): void;
}

/** The parts NewMainKubelet builds from the CRI (kubelet.ts); tests pass fakes. */
export interface KubeletParts {
  runtime: KubeletRuntime;
  recorder: EventRecorder & { list(): Event[] };
}

/**
 * KubeletLoop: the kubelet's engine (kubelet.go): the sync loop and everything it drives. The server uses
 * it through Kubelet (kubelet.ts), which builds the runtime manager and event recorder on the CRI.
 *
 * syncLoop: before each iteration, runtimeErrors() must be empty, else the loop traces `loop.skipped` and
 * backs off 100 ms → 5 s. Each iteration handles exactly one ready source (chosen at random among the
 * ready ones, like Go's select): config updates, PLEG events, the 1 s sync ticker (due pods of the work
 * queue), the 2 s housekeeping ticker. The loop never waits on a pod's sync: it only sends updates to the
 * pod workers. It does wait for housekeeping, as the kubelet does.
 */
export class KubeletLoop {
  readonly config: KubeletConfiguration;
  protected readonly clock: Clock;
  protected readonly trace: TraceRecorder;
  protected readonly runtime: KubeletRuntime;
  protected readonly recorder: EventRecorder & { list(): Event[] };
  readonly podConfig: PodConfig;
  readonly podManager = new PodManager();
  readonly podCache = new PodCache();
  readonly workQueue: BasicWorkQueue;
  readonly reasonCache: ReasonCache;
  readonly statusManager: StatusManager;
  readonly runtimeState: RuntimeState;
  readonly pleg: GenericPLEG;
  readonly podWorkers: PodWorkers;
  private readonly random: () => number;
  private readonly syncCh = new Channel<number>(1);
  private readonly housekeepingCh = new Channel<number>(1);
  private readonly plegCh: Channel<PodLifecycleEvent>;
  private timers: Timer[] = [];
  private abort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;
  private runtimeUpDone: Promise<void> | undefined;
  private versionInfo: VersionResponse | undefined;
  private lastIteration: number | null = null;
  private lastRuntimeReady: string | undefined;

  constructor(
    private readonly deps: KubeletDeps,
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
    this.pleg = new GenericPLEG(
      this.runtime,
      this.podCache,
      this.clock,
      this.trace,
      { relistPeriodMs: c.genericPlegRelistPeriodMs, relistThresholdMs: c.genericPlegRelistThresholdMs },
      c.plegChannelCapacity,
    );
    this.plegCh = this.pleg.watch();
    this.runtimeState.addHealthCheck('PLEG', () => this.pleg.healthy());
    const syncer = new KubeletSyncer({
      runtime: this.runtime,
      statusManager: this.statusManager,
      reasonCache: this.reasonCache,
      recorder: this.recorder,
      runtimeState: this.runtimeState,
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
        // as the status manager would: a deleted pod whose worker finished leaves the API
        if (this.podConfig.get(uid)?.metadata.deletionTimestamp) this.podConfig.remove(uid);
      },
    });
  }

  // ---- lifecycle -------------------------------------------------------------------------------------

  /** Run: runtime-up checks (at once, then every 5 s), the PLEG, the tickers and the sync loop. */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.runtimeUpDone = this.runtimeUpLoop(abort.signal);
    this.pleg.start();
    const now = () => this.clock.now();
    this.timers.push(this.clock.setTicker(this.config.syncTickerMs, () => this.syncCh.trySend(now())));
    this.timers.push(
      this.clock.setTicker(this.config.housekeepingPeriodMs, () => this.housekeepingCh.trySend(now())),
    );
    this.loopDone = this.syncLoop(abort.signal);
  }

  /** Stops every loop and timer. Containers keep running; pod workers finish their current sync only. */
  async stop(): Promise<void> {
    const abort = this.abort;
    if (!abort) return;
    abort.abort();
    this.pleg.stop();
    for (const t of this.timers) t.stop();
    this.timers = [];
    this.podWorkers.stop();
    await Promise.allSettled([this.loopDone, this.runtimeUpDone]);
    this.abort = undefined;
  }

  private async runtimeUpLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.updateRuntimeUp();
      try {
        await this.clock.sleep(this.config.runtimeUpPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** updateRuntimeUp: CRI Status → runtime/network readiness; failures leave the last good time alone. */
  async updateRuntimeUp(): Promise<void> {
    try {
      const s = await this.runtime.status();
      this.runtimeState.applyStatus(s);
      if (!this.versionInfo) this.versionInfo = await this.runtime.version();
    } catch {
      // "Container runtime sanity check failed"
    }
    const errors = this.runtimeState.runtimeErrors();
    const key = JSON.stringify(errors);
    if (key !== this.lastRuntimeReady) {
      this.lastRuntimeReady = key;
      this.trace.record({ type: 'runtime.state', ready: errors.length === 0, errors });
    }
  }

  private async syncLoop(signal: AbortSignal): Promise<void> {
    const base = this.config.syncLoopBackoffBaseMs;
    let duration = base;
    while (!signal.aborted) {
      const errors = this.runtimeState.runtimeErrors();
      if (errors.length > 0) {
        this.trace.record({ type: 'loop.skipped', errors, backoffMs: duration });
        try {
          await this.clock.sleep(duration, signal);
        } catch {
          return;
        }
        duration = Math.min(this.config.syncLoopBackoffMaxMs, duration * 2);
        continue;
      }
      duration = base;
      await selectReady(this.sources(), signal);
      if (signal.aborted) return;
      await this.syncLoopIteration();
    }
  }

  private sources(): Channel<unknown>[] {
    return [this.podConfig.updates, this.plegCh, this.syncCh, this.housekeepingCh] as Channel<unknown>[];
  }

  // ---- one iteration ---------------------------------------------------------------------------------

  /** Handles at most one ready source (random among the ready ones); null when none was ready. */
  async syncLoopIteration(): Promise<LoopSource | null> {
    const names: LoopSource[] = ['config', 'pleg', 'sync', 'housekeeping'];
    const ready = this.sources().flatMap((c, i) => (c.length > 0 ? [i] : []));
    if (ready.length === 0) return null;
    const pick = ready[Math.floor(this.random() * ready.length)] as number;
    const source = names[pick] as LoopSource;
    const t0 = this.clock.now();
    let pods = 0;
    switch (source) {
      case 'config': {
        const u = this.podConfig.updates.tryReceive()?.value as PodUpdate;
        pods = u.pods.length;
        this.handleConfigUpdate(u);
        break;
      }
      case 'pleg': {
        const e = this.plegCh.tryReceive()?.value as PodLifecycleEvent;
        if (isSyncPodWorthy(e)) {
          const pod = this.podManager.getPodByUID(e.id);
          if (pod) {
            this.handlePodSyncs([pod]);
            pods = 1;
          }
        }
        break;
      }
      case 'sync': {
        this.syncCh.tryReceive();
        const toSync = this.getPodsToSync();
        pods = toSync.length;
        if (toSync.length > 0) this.handlePodSyncs(toSync);
        break;
      }
      case 'housekeeping': {
        this.housekeepingCh.tryReceive();
        await this.housekeeping();
        break;
      }
    }
    this.lastIteration = this.clock.now();
    this.trace.record({ type: 'loop.iteration', source, pods, durationMs: this.clock.since(t0) });
    return source;
  }

  private handleConfigUpdate(u: PodUpdate): void {
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
        for (const p of u.pods) this.podManager.updatePod(p);
        return;
    }
  }

  /** HandlePodAdditions: oldest first; every pod is admitted (no admission handlers here). */
  handlePodAdditions(pods: Pod[]): void {
    const start = this.clock.now();
    const sorted = [...pods].sort((a, b) => creation(a) - creation(b));
    for (const pod of sorted) {
      this.podManager.addPod(pod);
      this.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod, startTime: start });
    }
  }

  handlePodUpdates(pods: Pod[]): void {
    const start = this.clock.now();
    for (const pod of pods) {
      this.podManager.updatePod(pod);
      this.podWorkers.updatePod({ updateType: 'SyncPodUpdate', pod, startTime: start });
    }
  }

  /** HandlePodRemoves: the pod is gone from the API; the worker tears it down if it has not yet. */
  handlePodRemoves(pods: Pod[]): void {
    const start = this.clock.now();
    for (const pod of pods) {
      this.podManager.removePod(pod);
      this.podWorkers.updatePod({ updateType: 'SyncPodKill', pod, startTime: start });
    }
  }

  handlePodSyncs(pods: Pod[]): void {
    const start = this.clock.now();
    for (const pod of pods) this.podWorkers.updatePod({ updateType: 'SyncPodSync', pod, startTime: start });
  }

  /** getPodsToSync: desired pods whose work-queue time has come. */
  private getPodsToSync(): Pod[] {
    const due = new Set(this.workQueue.getWork());
    if (due.size === 0) return [];
    return this.podManager.getPods().filter((p) => due.has(p.metadata.uid as string));
  }

  private async housekeeping(): Promise<void> {
    const t0 = this.clock.now();
    const r = await handlePodCleanups({
      podManager: this.podManager,
      podWorkers: this.podWorkers,
      statusManager: this.statusManager,
      runtime: this.runtime,
      orphanKillGracePeriodSeconds: this.config.orphanKillGracePeriodSeconds,
    });
    this.trace.record({
      type: 'housekeeping',
      durationMs: this.clock.since(t0),
      forgotten: r.forgotten,
      orphansKilled: r.orphansKilled,
      restarted: r.restarted,
    });
  }

  /** HandlePodCleanups, by hand (tests); traced like the loop's. */
  handlePodCleanups(): Promise<void> {
    return this.housekeeping();
  }

  relist(): Promise<void> {
    return this.pleg.relist();
  }

  // ---- the API's view ----------------------------------------------------------------------------------

  addPod(pod: Pod): void {
    this.podConfig.add(pod);
  }

  deletePod(uid: string, gracePeriodSeconds?: number): void {
    this.podConfig.delete(uid, gracePeriodSeconds);
  }

  getPods(): Pod[] {
    return this.podConfig.pods().map((p) => this.withStatus(p));
  }

  getPod(namespace: string, name: string): Pod | undefined {
    const p = this.podConfig
      .pods()
      .find((x) => (x.metadata.namespace ?? 'default') === namespace && x.metadata.name === name);
    return p && this.withStatus(p);
  }

  getPodByUID(uid: string): Pod | undefined {
    const p = this.podConfig.get(uid);
    return p && this.withStatus(p);
  }

  getEvents(): Event[] {
    return this.recorder.list();
  }

  nodeInfo(): NodeInfo {
    const errors = this.runtimeState.runtimeErrors();
    const [healthy, plegErr] = this.pleg.healthy();
    const v = this.versionInfo;
    const speed = (this.clock as { speed?: number }).speed;
    return {
      nodeName: this.config.nodeName,
      runtime: {
        name: v?.runtime_name ?? '',
        version: v?.runtime_version ?? '',
        apiVersion: v?.runtime_api_version ?? '',
        endpoint: this.deps.runtimeEndpoint,
        ready: errors.length === 0,
        errors,
      },
      simulated: this.deps.simulated,
      pleg: {
        mode: 'generic',
        healthy,
        lastRelist: this.pleg.lastRelistTime || null,
        message: plegErr ?? '',
      },
      sync: { lastIteration: this.lastIteration },
      configuration: this.config,
      clock: { now: this.clock.now(), speed: typeof speed === 'number' ? speed : 1 },
    };
  }

  private withStatus(p: Pod): Pod {
    const status = this.statusManager.getPodStatus(p.metadata.uid as string) ??
      p.status ?? { phase: 'Pending' };
    return { ...p, status: structuredClone(status) };
  }
}

function creation(p: Pod): number {
  return p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : 0;
}
