import type { Timer } from '../clock/clock.ts';
import type { VersionResponse } from '../cri/types.ts';
import type { LoopSource } from '../events/trace.ts';
import type { AdmittedPod } from './config/admitted-pod.ts';
import type { PodUpdate } from './config/config.ts';
import type { KubeletComponents } from './kubelet-components.ts';
import type { PodHandlers } from './kubelet-handlers.ts';
import { handlePodCleanups } from './kubelet-pods.ts';
import { ContainerDied, isSyncPodWorthy, type PodLifecycleEvent } from './pleg/pleg.ts';
import { type Channel, selectReady } from './util/channel.ts';

/**
 * SyncLoop: the kubelet's loops (kubelet.go's Run, syncLoop, syncLoopIteration, updateRuntimeUp) over the
 * parts of one KubeletComponents; the Kubelet facade (kubelet.ts) owns it and starts and stops it.
 *
 * syncLoop: before each iteration, runtimeErrors() must be empty, else the loop traces `loop.skipped` and
 * backs off 100 ms → 5 s. Each iteration handles exactly one ready source (chosen at random among the
 * ready ones, like Go's select): config updates, PLEG events, the 1 s sync ticker (due pods of the work
 * queue and pods past their active deadline), liveness/readiness/startup result changes (traced as source
 * `probe`), the 2 s housekeeping ticker. The loop never waits on a pod's sync: it only sends updates to the
 * pod workers (through PodHandlers). It does wait for housekeeping, as the kubelet does. While a source is
 * ready it goes on to the next iteration without yielding, as the kubelet's loop goroutine does not block
 * then; the pod workers it woke run after it has handed over what is ready, so the PLEG events of one relist
 * reach a pod's worker as one update (coalesced), not as two syncs.
 */
export class SyncLoop {
  private timers: Timer[] = [];
  private abort: AbortController | undefined;
  private loopDone: Promise<void> | undefined;
  private runtimeUpDone: Promise<void> | undefined;
  private lastRuntimeReady: string | undefined;
  /** the runtime's Version answer, once one Status call succeeded (nodeInfo) */
  versionInfo: VersionResponse | undefined;
  /** when the last iteration ended (nodeInfo); null before the first */
  lastIteration: number | null = null;

  constructor(
    private readonly c: KubeletComponents,
    private readonly handlers: PodHandlers,
  ) {}

  // ---- lifecycle -------------------------------------------------------------------------------------

  /** Run: runtime-up checks (at once, then every 5 s), the PLEG, the tickers (sync, housekeeping, status
   *  sync) and the sync loop. A second call while running does nothing. */
  start(): void {
    if (this.abort) return;
    const { c } = this;
    const abort = new AbortController();
    this.abort = abort;
    c.containerDeletor?.resume();
    this.runtimeUpDone = this.runtimeUpLoop(abort.signal);
    c.pleg.start();
    c.eventedPleg?.start();
    const now = () => c.clock.now();
    this.timers.push(c.clock.setTicker(c.config.syncTickerMs, () => c.syncCh.trySend(now())));
    this.timers.push(c.clock.setTicker(c.config.housekeepingPeriodMs, () => c.housekeepingCh.trySend(now())));
    this.timers.push(
      c.clock.setTicker(c.config.statusSyncPeriodMs, () => c.statusManager.syncBatch(c.podConfig)),
    );
    this.loopDone = this.syncLoop(abort.signal);
  }

  /** Stops every loop and timer. Containers keep running; pod workers finish their current sync only; the
   *  container deletor sends nothing more once its removal in flight has returned. */
  async stop(): Promise<void> {
    const abort = this.abort;
    if (!abort) return;
    const { c } = this;
    abort.abort();
    c.eventedPleg?.stop();
    c.pleg.stop();
    c.probeManager.cleanupPods(new Set());
    for (const t of this.timers) t.stop();
    this.timers = [];
    c.podWorkers.stop();
    await Promise.allSettled([this.loopDone, this.runtimeUpDone, c.containerDeletor?.pause()]);
    this.abort = undefined;
  }

  private async runtimeUpLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.updateRuntimeUp();
      try {
        await this.c.clock.sleep(this.c.config.runtimeUpPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** updateRuntimeUp: CRI Status → runtime/network readiness; failures leave the last good time alone. */
  async updateRuntimeUp(): Promise<void> {
    const { runtime, runtimeState } = this.c;
    try {
      const s = await runtime.status();
      runtimeState.applyStatus(s);
      runtimeState.setStatusError(undefined);
      if (!this.versionInfo) this.versionInfo = await runtime.version();
    } catch (e) {
      // the kubelet logs "Container runtime sanity check failed" and keeps the last good time
      runtimeState.setStatusError(
        `container runtime sanity check failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const errors = runtimeState.reportedErrors();
    const key = JSON.stringify(errors);
    if (key !== this.lastRuntimeReady) {
      this.lastRuntimeReady = key;
      this.c.trace.record({ type: 'runtime.state', ready: errors.length === 0, errors });
    }
  }

  private async syncLoop(signal: AbortSignal): Promise<void> {
    const { clock, config, runtimeState, trace } = this.c;
    const base = config.syncLoopBackoffBaseMs;
    let duration = base;
    while (!signal.aborted) {
      const errors = runtimeState.runtimeErrors();
      if (errors.length > 0) {
        trace.record({ type: 'loop.skipped', errors, backoffMs: duration });
        try {
          await clock.sleep(duration, signal);
        } catch {
          return;
        }
        duration = Math.min(config.syncLoopBackoffMaxMs, duration * 2);
        continue;
      }
      duration = base;
      // no await while a source is ready (see the class comment)
      if (!this.sources().some((ch) => ch.length > 0)) {
        await selectReady(this.sources(), signal);
        if (signal.aborted) return;
      }
      const r = this.iterate();
      if (r instanceof Promise) await r;
    }
  }

  /** The select's cases, in the kubelet's order; the three probe channels are all traced as `probe`. */
  private sources(): Channel<unknown>[] {
    const { c } = this;
    const pm = c.probeManager;
    return [
      c.podConfig.updates,
      c.plegCh,
      c.syncCh,
      pm.livenessManager.updates,
      pm.readinessManager.updates,
      pm.startupManager.updates,
      c.housekeepingCh,
    ] as Channel<unknown>[];
  }

  // ---- one iteration ---------------------------------------------------------------------------------

  /** Handles at most one ready source (random among the ready ones); null when none was ready. */
  async syncLoopIteration(): Promise<LoopSource | null> {
    const r = this.iterate();
    return r instanceof Promise ? await r : r;
  }

  /**
   * One iteration. Every source but housekeeping is handed over synchronously (the handlers only send
   * updates to the pod workers); housekeeping, which the loop waits for, returns a promise.
   */
  private iterate(): LoopSource | null | Promise<LoopSource> {
    const { c, handlers } = this;
    const cases = ['config', 'pleg', 'sync', 'liveness', 'readiness', 'startup', 'housekeeping'] as const;
    const ready = this.sources().flatMap((ch, i) => (ch.length > 0 ? [i] : []));
    if (ready.length === 0) return null;
    const pick = ready[Math.floor(c.random() * ready.length)] as number;
    const which = cases[pick] as (typeof cases)[number];
    const source: LoopSource =
      which === 'liveness' || which === 'readiness' || which === 'startup' ? 'probe' : which;
    const t0 = c.clock.now();
    let pods = 0;
    switch (which) {
      case 'liveness':
      case 'readiness':
      case 'startup': {
        const u = c.probeManager.resultsManager(probeTypeOf[which]).updates.tryReceive()?.value;
        if (u) pods = handlers.handleProbeUpdate(which, u);
        break;
      }
      case 'config': {
        const u = c.podConfig.updates.tryReceive()?.value as PodUpdate;
        pods = u.pods.length;
        handlers.handleConfigUpdate(u);
        break;
      }
      case 'pleg': {
        const e = c.plegCh.tryReceive()?.value as PodLifecycleEvent;
        if (isSyncPodWorthy(e)) {
          const pod = c.podManager.getPodByUID(e.id);
          if (pod) {
            handlers.handlePodSyncs([pod]);
            pods = 1;
          }
        }
        if (e.type === ContainerDied && e.data) handlers.cleanUpContainersInPod(e.id, e.data);
        break;
      }
      case 'sync': {
        c.syncCh.tryReceive();
        const toSync = this.getPodsToSync();
        pods = toSync.length;
        if (toSync.length > 0) handlers.handlePodSyncs(toSync);
        break;
      }
      case 'housekeeping': {
        c.housekeepingCh.tryReceive();
        return this.housekeeping().then(() => this.endIteration(source, 0, t0));
      }
    }
    return this.endIteration(source, pods, t0);
  }

  private endIteration(source: LoopSource, pods: number, t0: number): LoopSource {
    const { c } = this;
    this.lastIteration = c.clock.now();
    c.trace.record({ type: 'loop.iteration', source, pods, durationMs: c.clock.since(t0) });
    return source;
  }

  /** getPodsToSync: desired pods whose work-queue time has come, and those a PodSyncLoopHandler wants. */
  private getPodsToSync(): AdmittedPod[] {
    const due = new Set(this.c.workQueue.getWork());
    return this.c.podManager
      .getPods()
      .filter((p) => due.has(p.metadata.uid) || this.c.activeDeadline.shouldSync(p));
  }

  /** HandlePodCleanups with the loop's parts, traced as `housekeeping`; the loop waits for it. */
  async housekeeping(): Promise<void> {
    const { c } = this;
    const t0 = c.clock.now();
    const r = await handlePodCleanups({
      podManager: c.podManager,
      podWorkers: c.podWorkers,
      statusManager: c.statusManager,
      runtime: c.runtime,
      runtimeCache: c.runtimeCache,
      now: () => c.clock.now(),
      probeManager: c.probeManager,
      orphanKillGracePeriodSeconds: c.config.orphanKillGracePeriodSeconds,
    });
    c.trace.record({
      type: 'housekeeping',
      durationMs: c.clock.since(t0),
      forgotten: r.forgotten,
      orphansKilled: r.orphansKilled,
      restarted: r.restarted,
    });
  }
}

const probeTypeOf = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' } as const;
