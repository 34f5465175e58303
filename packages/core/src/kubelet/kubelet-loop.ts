import type { Event, Pod } from '../api/v1.ts';
import type { Timer } from '../clock/clock.ts';
import type { VersionResponse } from '../cri/types.ts';
import type { LoopSource } from '../events/trace.ts';
import type { PodUpdate } from './config/config.ts';
import type { NodeInfo } from './configuration.ts';
import type { RuntimePod } from './container/runtime.ts';
import { KubeletComponents } from './kubelet-components.ts';
import { filterOutInactivePods, handlePodCleanups } from './kubelet-pods.ts';
import { getPodQOS } from './kuberuntime/kuberuntime-sandbox.ts';
import type { PodAdmitHandler, PodAdmitResult } from './lifecycle/interfaces.ts';
import { PredicateAdmitHandler } from './lifecycle/predicate.ts';
import { ContainerDied, isSyncPodWorthy, type PodLifecycleEvent } from './pleg/pleg.ts';
import { isTerminalPhase } from './pod-ref.ts';
import type { ProbeUpdate } from './prober/results-manager.ts';
import { type Channel, selectReady } from './util/channel.ts';

export type { KubeletDeps, KubeletParts, KubeletRuntime } from './kubelet-components.ts';

/**
 * KubeletLoop: the kubelet's engine (kubelet.go): the sync loop and everything it drives. The server uses
 * it through Kubelet (kubelet.ts), which builds the runtime manager and event recorder on the CRI.
 *
 * syncLoop: before each iteration, runtimeErrors() must be empty, else the loop traces `loop.skipped` and
 * backs off 100 ms → 5 s. Each iteration handles exactly one ready source (chosen at random among the
 * ready ones, like Go's select): config updates, PLEG events, the 1 s sync ticker (due pods of the work
 * queue and pods past their active deadline), liveness/readiness/startup result changes (traced as source
 * `probe`), the 2 s housekeeping ticker. The loop never waits on a pod's sync: it only sends updates to the
 * pod workers. It does wait for housekeeping, as the kubelet does.
 */
export class KubeletLoop extends KubeletComponents {
  private timers: Timer[] = [];
  private abort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;
  private runtimeUpDone: Promise<void> | undefined;
  private versionInfo: VersionResponse | undefined;
  private lastIteration: number | null = null;
  private lastRuntimeReady: string | undefined;
  /** the kubelet's admitHandlers; each added pod must pass every one (canAdmitPod) */
  private readonly admitHandlers: PodAdmitHandler[] = [new PredicateAdmitHandler(this.config.maxPods)];

  // ---- lifecycle -------------------------------------------------------------------------------------

  /** Run: runtime-up checks (at once, then every 5 s), the PLEG, the tickers (sync, housekeeping, status
   *  sync) and the sync loop. */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.containerDeletor?.resume();
    this.runtimeUpDone = this.runtimeUpLoop(abort.signal);
    this.pleg.start();
    this.eventedPleg?.start();
    const now = () => this.clock.now();
    this.timers.push(this.clock.setTicker(this.config.syncTickerMs, () => this.syncCh.trySend(now())));
    this.timers.push(
      this.clock.setTicker(this.config.housekeepingPeriodMs, () => this.housekeepingCh.trySend(now())),
    );
    this.timers.push(
      this.clock.setTicker(this.config.statusSyncPeriodMs, () =>
        this.statusManager.syncBatch(this.podConfig),
      ),
    );
    this.loopDone = this.syncLoop(abort.signal);
  }

  /** Stops every loop and timer. Containers keep running; pod workers finish their current sync only; the
   *  container deletor sends nothing more once its removal in flight has returned. */
  async stop(): Promise<void> {
    const abort = this.abort;
    if (!abort) return;
    abort.abort();
    this.eventedPleg?.stop();
    this.pleg.stop();
    this.probeManager.cleanupPods(new Set());
    for (const t of this.timers) t.stop();
    this.timers = [];
    this.podWorkers.stop();
    await Promise.allSettled([this.loopDone, this.runtimeUpDone, this.containerDeletor?.pause()]);
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
      this.runtimeState.setStatusError(undefined);
      if (!this.versionInfo) this.versionInfo = await this.runtime.version();
    } catch (e) {
      // the kubelet logs "Container runtime sanity check failed" and keeps the last good time
      this.runtimeState.setStatusError(
        `container runtime sanity check failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const errors = this.runtimeState.reportedErrors();
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

  /** The select's cases, in the kubelet's order; the three probe channels are all traced as `probe`. */
  private sources(): Channel<unknown>[] {
    const pm = this.probeManager;
    return [
      this.podConfig.updates,
      this.plegCh,
      this.syncCh,
      pm.livenessManager.updates,
      pm.readinessManager.updates,
      pm.startupManager.updates,
      this.housekeepingCh,
    ] as Channel<unknown>[];
  }

  // ---- one iteration ---------------------------------------------------------------------------------

  /** Handles at most one ready source (random among the ready ones); null when none was ready. */
  async syncLoopIteration(): Promise<LoopSource | null> {
    const cases = ['config', 'pleg', 'sync', 'liveness', 'readiness', 'startup', 'housekeeping'] as const;
    const ready = this.sources().flatMap((c, i) => (c.length > 0 ? [i] : []));
    if (ready.length === 0) return null;
    const pick = ready[Math.floor(this.random() * ready.length)] as number;
    const which = cases[pick] as (typeof cases)[number];
    const source: LoopSource =
      which === 'liveness' || which === 'readiness' || which === 'startup' ? 'probe' : which;
    const t0 = this.clock.now();
    let pods = 0;
    switch (which) {
      case 'liveness':
      case 'readiness':
      case 'startup': {
        const u = this.probeManager.resultsManager(probeTypeOf[which]).updates.tryReceive()?.value;
        if (u) pods = this.handleProbeUpdate(which, u);
        break;
      }
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
        if (e.type === ContainerDied && e.data) this.cleanUpContainersInPod(e.id, e.data);
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

  /**
   * A probe result changed: readiness and startup are written into the status manager first; liveness
   * syncs the pod only on Failure (computePodActions then kills the container). Returns the pods synced.
   */
  private handleProbeUpdate(which: 'liveness' | 'readiness' | 'startup', u: ProbeUpdate): number {
    const pod = this.podManager.getPodByUID(u.podUID);
    if (which === 'liveness' && u.result !== 'Failure') return 0;
    if (!pod) return 0; // "SyncLoop (probe): ignore irrelevant update"
    if (which === 'readiness')
      this.statusManager.setContainerReadiness(pod, u.containerID, u.result === 'Success');
    if (which === 'startup')
      this.statusManager.setContainerStartup(pod, u.containerID, u.result === 'Success');
    this.handlePodSyncs([pod]);
    return 1;
  }

  /** cleanUpContainersInPod: after ContainerDied, remove older exited instances (all, if content goes). */
  private cleanUpContainersInPod(uid: string, exitedContainerID: string): void {
    const entry = this.podCache.get(uid);
    if (entry.error || !this.containerDeletor) return;
    const removeAll = this.podWorkers.shouldPodContentBeRemoved(uid);
    this.containerDeletor.deleteContainersInPod(exitedContainerID, entry.status, removeAll);
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
  handlePodAdditions(pods: Pod[]): void {
    const start = this.clock.now();
    const sorted = [...pods].sort((a, b) => creation(a) - creation(b));
    for (const pod of sorted) {
      this.podManager.addPod(pod);
      const uid = pod.metadata.uid as string;
      if (!this.podWorkers.isPodTerminationRequested(uid) && !isTerminalPhase(pod.status?.phase)) {
        const r = this.canAdmitPod(pod);
        if (!r.admit) {
          this.rejectPod(pod, r.reason, r.message);
          continue;
        }
      }
      this.podWorkers.updatePod({ updateType: 'SyncPodCreate', pod, startTime: start });
    }
  }

  /** canAdmitPod: the first refusal of the admit handlers, or admit. */
  private canAdmitPod(pod: Pod): PodAdmitResult {
    const uid = pod.metadata.uid;
    const others = filterOutInactivePods(
      this.podManager.getPods(),
      this.podWorkers,
      this.statusManager,
    ).filter((p) => p.metadata.uid !== uid);
    for (const h of this.admitHandlers) {
      const r = h.admit({ pod, otherPods: others });
      if (!r.admit) return r;
    }
    return { admit: true };
  }

  /** rejectPod: a Warning Event with the handler's reason and message, and the pod Failed for good. */
  private rejectPod(pod: Pod, reason: string, message: string): void {
    this.recorder.event(pod, 'Warning', reason, message);
    this.statusManager.setPodStatus(pod, {
      phase: 'Failed',
      reason,
      message: `Pod was rejected: ${message}`,
      qosClass: getPodQOS(pod),
    });
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

  /** getPodsToSync: desired pods whose work-queue time has come, and those a PodSyncLoopHandler wants. */
  private getPodsToSync(): Pod[] {
    const due = new Set(this.workQueue.getWork());
    return this.podManager
      .getPods()
      .filter((p) => due.has(p.metadata.uid as string) || this.activeDeadline.shouldSync(p));
  }

  private async housekeeping(): Promise<void> {
    const t0 = this.clock.now();
    const r = await handlePodCleanups({
      podManager: this.podManager,
      podWorkers: this.podWorkers,
      statusManager: this.statusManager,
      runtime: this.runtime,
      runtimeCache: this.runtimeCache,
      now: () => this.clock.now(),
      probeManager: this.probeManager,
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

  /**
   * Every pod the runtime has (GetPods(all=true)), ours and others': `managed` is false for sandboxes or
   * containers without our ownership label. Read-only; the engine never acts on unmanaged ones.
   */
  listRuntimePods(): Promise<RuntimePod[]> {
    return this.runtime.getPods(true);
  }

  nodeInfo(): NodeInfo {
    const errors = this.runtimeState.reportedErrors();
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
        mode: this.eventedPleg?.mode ?? 'generic',
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

const probeTypeOf = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' } as const;

function creation(p: Pod): number {
  return p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : 0;
}
