/**
 * Container garbage collection: the policy and the periodic run (container/container_gc.go, and the container
 * half of kubelet.go's StartGarbageCollection). What a run removes is the runtime's side to decide
 * (kuberuntime/kuberuntime-gc.ts: evictContainers, evictSandboxes, evictPodLogsDirectories); this file says
 * how often and with which policy, and traces each run as `container.gc`.
 *
 *   t=0           first run at once (wait.Until); before housekeeping's first SyncKnownPods a pod the
 *                 workers do not know counts as alive (keeps its newest sandbox and dead container)
 *   t=run end+1m  next run; the period counts from the end of the last run (wait.Until is sliding)
 *
 * Without it, nothing ever removes the sandbox of a deleted pod: killPod only stops it, and the container
 * deletor only prunes exited instances of a pod's containers.
 */
import type { Clock } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';

/** GCPolicy (container_gc.go): which dead containers a run may remove. Sandboxes are not subject to it. */
export interface GCPolicy {
  /** MinAge (--minimum-container-ttl-duration): a dead container created less than this ago is kept; 0: none */
  minAgeMs: number;
  /** MaxPerPodContainer: dead instances kept per (pod UID, container name); < 0: no limit */
  maxPerPodContainer: number;
  /** MaxContainers: dead containers kept on the node in all; < 0: no limit */
  maxContainers: number;
}

/** The kubelet's flag defaults: MinAge 0, MaxPerPodContainer 1, MaxContainers -1. */
export const defaultGCPolicy: GCPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

/** ContainerGCPeriod (kubelet.go). */
export const ContainerGCPeriodMs = 60_000;

/** What one run removed (ids the runtime acknowledged), and what failed, as the kubelet aggregates it. */
export interface GCResult {
  containers: number;
  sandboxes: number;
  podLogDirs: number;
  errors: string[];
}

/** Runtime.GarbageCollect (container/runtime.go): kuberuntime's ContainerGC (kuberuntime-gc.ts). */
export interface RuntimeGarbageCollector {
  garbageCollect(
    policy: GCPolicy,
    allSourcesReady: boolean,
    evictNonDeletedPods: boolean,
    signal?: AbortSignal,
  ): Promise<GCResult>;
}

export interface ContainerGCOptions {
  /** how long after a run ends the next one starts (ContainerGCPeriod) */
  periodMs: number;
  policy: GCPolicy;
}

export const defaultContainerGCOptions: ContainerGCOptions = {
  periodMs: ContainerGCPeriodMs,
  policy: defaultGCPolicy,
};

export interface RealContainerGCDeps {
  runtime: RuntimeGarbageCollector;
  /** SourcesReadyProvider.AllReady: every config source has been seen (deleted pods may then be purged) */
  sourcesReady: () => boolean;
  clock: Clock;
  trace: TraceRecorder;
  options: ContainerGCOptions;
}

/**
 * realContainerGC (NewContainerGC) plus its loop. garbageCollect() is one run (tests call it by hand);
 * start()/stop() run it every period on the clock. Runs never overlap: the next is scheduled when the last
 * has ended.
 */
export class RealContainerGC {
  private abort: AbortController | undefined;
  private done: Promise<void> | undefined;

  constructor(private readonly deps: RealContainerGCDeps) {
    // NewContainerGC's check
    if (deps.options.policy.minAgeMs < 0) {
      throw new Error(`invalid minimum garbage collection age: ${deps.options.policy.minAgeMs}ms`);
    }
  }

  /**
   * GarbageCollect: one run with the policy, evictNonDeletedPods false (only the eviction manager's
   * DeleteAllUnusedContainers passes true). Never rejects: failures are in the result and the trace event's
   * `error` (the kubelet logs "Container garbage collection failed" and tries again next period).
   */
  async garbageCollect(signal?: AbortSignal): Promise<GCResult> {
    const { clock, trace, runtime, options, sourcesReady } = this.deps;
    const t0 = clock.now();
    let r: GCResult;
    try {
      r = await runtime.garbageCollect(options.policy, sourcesReady(), false, signal);
    } catch (e) {
      r = {
        containers: 0,
        sandboxes: 0,
        podLogDirs: 0,
        errors: [e instanceof Error ? e.message : String(e)],
      };
    }
    trace.record({
      type: 'container.gc',
      durationMs: clock.since(t0),
      containers: r.containers,
      sandboxes: r.sandboxes,
      podLogDirs: r.podLogDirs,
      ...(r.errors.length > 0 ? { error: aggregate(r.errors) } : {}),
    });
    return r;
  }

  /** StartGarbageCollection's container loop (wait.Until): a run at once, then one a period after each. */
  start(): void {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.done = this.loop(abort.signal);
  }

  /** Stops the loop; a run in progress ends after the CRI call it is in. */
  async stop(): Promise<void> {
    const abort = this.abort;
    if (!abort) return;
    abort.abort();
    await this.done;
    this.abort = undefined;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await this.garbageCollect(signal);
      try {
        await this.deps.clock.sleep(this.deps.options.periodMs, signal);
      } catch {
        return;
      }
    }
  }
}

/** utilerrors.NewAggregate's text: one error as is, several as `[a, b]`. */
function aggregate(errors: string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}
