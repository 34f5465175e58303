/**
 * The kubelet's Prometheus metrics (pkg/kubelet/metrics/metrics.go names, subsystem `kubelet_`), derived from
 * the trace rather than from hooks in the engine: KubeletMetrics subscribes to the TraceRecorder and updates
 * counters and histograms as events are recorded; the gauges are computed at scrape time from the engine's
 * pods, the last `status.update` of each pod and the last `worker.state` of each pod worker.
 *
 *   pleg.relist    → pleg_relist_duration_seconds, pleg_relist_interval_seconds, pleg_last_seen_seconds
 *   runtime.call   → runtime_operations_total / _duration_seconds / _errors_total {operation_type}
 *   sync.start     → remembers the update type; sync.result → pod_worker_duration_seconds{operation_type}
 *   sync.result    → started_pods_total / _errors_total (CreatePodSandbox actions), started_containers_total
 *                    / _errors_total{container_type,code} (StartContainer actions not refused by back-off,
 *                    code = the kubelet's error name such as ErrImagePull or RunContainerError)
 *   housekeeping   → orphaned_runtime_pods_total, restarted_pods_total{static=""}
 *
 * One Registry per instance (never prom-client's global one), so several apps can live in one process.
 * Listeners run synchronously inside TraceRecorder.record and only touch in-memory maps.
 */
import type { Pod, PodStatus } from '@syncscope/core/api';
import type { TraceEvent, WorkerState } from '@syncscope/core/trace';
import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import type { TraceSource } from './context.ts';
import type { Engine } from './engine.ts';

/** Prometheus DefBuckets, which the kubelet's histograms use unless noted. */
const DEF_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const ALPHA = '[ALPHA] ';
const PENDING: PodStatus = { phase: 'Pending' };
const s = (ms: number) => ms / 1000;

/** `RunPodSandbox` → `run_podsandbox`, `ContainerStatus` → `container_status` (instrumented_services.go). */
export function operationType(method: string): string {
  return method
    .replace(/PodSandbox/g, 'Podsandbox')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/** The pod worker's operation, as kubetypes.SyncPodType.String() and the terminated path name it. */
function workerOperation(workType: string, updateType: string | undefined): string {
  if (workType === 'TerminatedPod') return 'terminated';
  if (workType === 'TerminatingPod') return 'kill';
  switch (updateType) {
    case 'SyncPodCreate':
      return 'create';
    case 'SyncPodUpdate':
      return 'update';
    case 'SyncPodKill':
      return 'kill';
    default:
      return 'sync';
  }
}

function containerType(pod: Pod | undefined, name: string): string {
  if (pod?.spec.initContainers?.some((c) => c.name === name)) return 'init_container';
  const eph = (pod?.spec as { ephemeralContainers?: { name: string }[] } | undefined)?.ephemeralContainers;
  if (eph?.some((c) => c.name === name)) return 'ephemeral_container';
  return 'container';
}

const LIFECYCLE: Partial<Record<WorkerState, string>> = {
  SyncPod: 'sync',
  TerminatingPod: 'terminating',
  TerminatedPod: 'terminated',
  Finished: 'terminated',
};

export class KubeletMetrics {
  readonly registry = new Registry();
  private readonly unsubscribe: () => void;
  private readonly updateTypes = new Map<string, string>();
  private readonly statuses = new Map<string, PodStatus>();
  private readonly workers = new Map<string, WorkerState>();
  /** Pods the config source ever told us about; a worker for any other uid is runtime-only. */
  private readonly configured = new Set<string>();
  private lastRelistStart: number | undefined;
  private lastRelistEnd: number | undefined;

  private readonly c;

  constructor(
    trace: Pick<TraceSource, 'subscribe'>,
    private readonly engine: Pick<Engine, 'getPods' | 'getPodByUID'>,
    journal?: { readonly badRecords: number },
  ) {
    const registers = [this.registry];
    const counter = (name: string, help: string, labelNames: string[] = []) =>
      new Counter({ name: `kubelet_${name}`, help: ALPHA + help, labelNames, registers });
    const histogram = (name: string, help: string, buckets: number[], labelNames: string[] = []) =>
      new Histogram({ name: `kubelet_${name}`, help: ALPHA + help, labelNames, buckets, registers });
    this.c = {
      podWorkerDuration: histogram(
        'pod_worker_duration_seconds',
        'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync',
        DEF_BUCKETS,
        ['operation_type'],
      ),
      relistDuration: histogram(
        'pleg_relist_duration_seconds',
        'Duration in seconds for relisting pods in PLEG.',
        DEF_BUCKETS,
      ),
      relistInterval: histogram(
        'pleg_relist_interval_seconds',
        'Interval in seconds between relisting in PLEG.',
        DEF_BUCKETS,
      ),
      discards: counter('pleg_discard_events', 'The number of discard events in PLEG.'),
      runtimeOps: counter(
        'runtime_operations_total',
        'Cumulative number of runtime operations by operation type.',
        ['operation_type'],
      ),
      runtimeDuration: histogram(
        'runtime_operations_duration_seconds',
        'Duration in seconds of runtime operations. Broken down by operation type.',
        exponentialBuckets(0.005, 2.5, 14),
        ['operation_type'],
      ),
      runtimeErrors: counter(
        'runtime_operations_errors_total',
        'Cumulative number of runtime operation errors by operation type.',
        ['operation_type'],
      ),
      startedPods: counter('started_pods_total', 'Cumulative number of pods started'),
      startedPodsErrors: counter(
        'started_pods_errors_total',
        'Cumulative number of errors when starting pods',
      ),
      startedContainers: counter('started_containers_total', 'Cumulative number of containers started', [
        'container_type',
      ]),
      startedContainersErrors: counter(
        'started_containers_errors_total',
        'Cumulative number of errors when starting containers',
        ['container_type', 'code'],
      ),
      orphaned: counter(
        'orphaned_runtime_pods_total',
        'Number of pods that have been detected in the container runtime without being already known to the pod worker. This typically indicates the kubelet was restarted while a pod was force deleted in the API or in the local configuration, which is unusual.',
      ),
      restarted: counter(
        'restarted_pods_total',
        'Number of pods that have been restarted because they were deleted and recreated with the same UID while the kubelet was watching them (common for static pods, extremely uncommon for API pods)',
        ['static'],
      ),
    };
    this.registerGauges();
    if (journal) {
      // read at scrape time: the journal counts bad records when it opens
      new Counter({
        name: 'syncscope_journal_bad_records_total',
        help: 'Bad records found in the trace journal (kept on disk, skipped by readers).',
        registers,
        collect() {
          this.reset();
          this.inc(journal.badRecords);
        },
      });
    }
    this.unsubscribe = trace.subscribe((ev) => this.observe(ev), 'the metrics');
  }

  /** Stops following the trace; the registry keeps what it counted. */
  close(): void {
    this.unsubscribe();
  }

  /** The text exposition, for GET /metrics. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private observe(ev: TraceEvent): void {
    const c = this.c;
    switch (ev.type) {
      case 'pleg.relist': {
        const start = ev.time - ev.durationMs;
        if (this.lastRelistStart !== undefined) c.relistInterval.observe(s(start - this.lastRelistStart));
        this.lastRelistStart = start;
        this.lastRelistEnd = ev.time;
        c.relistDuration.observe(s(ev.durationMs));
        break;
      }
      case 'runtime.call': {
        const op = operationType(ev.method);
        c.runtimeOps.inc({ operation_type: op });
        c.runtimeDuration.observe({ operation_type: op }, s(ev.durationMs));
        if (ev.error !== undefined || ev.code !== undefined) c.runtimeErrors.inc({ operation_type: op });
        break;
      }
      case 'sync.start':
        this.updateTypes.set(ev.podUID, ev.updateType);
        break;
      case 'sync.result': {
        c.podWorkerDuration.observe(
          { operation_type: workerOperation(ev.workType, this.updateTypes.get(ev.podUID)) },
          s(ev.durationMs),
        );
        this.countStarts(ev);
        break;
      }
      case 'housekeeping':
        if (ev.orphansKilled > 0) c.orphaned.inc(ev.orphansKilled);
        if (ev.restarted > 0) c.restarted.inc({ static: '' }, ev.restarted);
        break;
      case 'status.update':
        this.statuses.set(ev.podUID, ev.status);
        break;
      case 'config.update':
        this.configured.add(ev.podUID);
        break;
      case 'worker.state':
        if (ev.to === 'Forgotten') {
          this.workers.delete(ev.podUID);
          this.statuses.delete(ev.podUID);
          this.updateTypes.delete(ev.podUID);
          this.configured.delete(ev.podUID);
        } else this.workers.set(ev.podUID, ev.to);
        break;
      default:
        break;
    }
  }

  private countStarts(ev: Extract<TraceEvent, { type: 'sync.result' }>): void {
    const c = this.c;
    for (const a of ev.actions) {
      if (a.action === 'CreatePodSandbox') {
        c.startedPods.inc();
        if (a.error) c.startedPodsErrors.inc();
      } else if (a.action === 'StartContainer' && a.error !== 'CrashLoopBackOff') {
        // a start refused by the restart back-off never reached startContainer: the kubelet counts neither
        const type = containerType(this.engine.getPodByUID(ev.podUID), a.target);
        c.startedContainers.inc({ container_type: type });
        if (a.error) c.startedContainersErrors.inc({ container_type: type, code: a.error });
      }
    }
  }

  private registerGauges(): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => void) =>
      new Gauge({
        name: `kubelet_${name}`,
        help: ALPHA + help,
        labelNames,
        registers,
        collect() {
          collect(this);
        },
      });
    const podStatuses = () =>
      this.engine.getPods().map((p) => this.statuses.get(p.metadata.uid ?? '') ?? p.status ?? PENDING);
    const terminal = (st: PodStatus) => st.phase === 'Succeeded' || st.phase === 'Failed';

    gauge('running_pods', 'Number of pods that have a running pod sandbox', [], (g) => {
      const running = podStatuses().filter(
        (st) => !terminal(st) && (!!st.podIP || (st.containerStatuses ?? []).some((cs) => cs.state?.running)),
      );
      g.set(running.length);
    });
    gauge('running_containers', 'Number of containers currently running', ['container_state'], (g) => {
      const n: Record<string, number> = { created: 0, running: 0, exited: 0, unknown: 0 };
      for (const st of podStatuses()) {
        for (const cs of [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])]) {
          if (cs.state?.running) n.running = (n.running ?? 0) + 1;
          else if (cs.state?.terminated?.containerID) n.exited = (n.exited ?? 0) + 1;
          if (cs.lastState?.terminated?.containerID) n.exited = (n.exited ?? 0) + 1;
        }
      }
      for (const [state, v] of Object.entries(n)) g.set({ container_state: state }, v);
    });
    gauge(
      'desired_pods',
      'The number of pods the kubelet is being instructed to run. static is true if the pod is not from the apiserver.',
      ['static'],
      (g) => {
        g.set({ static: '' }, this.engine.getPods().length);
        g.set({ static: 'true' }, 0);
      },
    );
    gauge(
      'active_pods',
      'The number of pods the kubelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver.',
      ['static'],
      (g) => {
        g.set({ static: '' }, podStatuses().filter((st) => !terminal(st)).length);
        g.set({ static: 'true' }, 0);
      },
    );
    gauge(
      'working_pods',
      'Number of pods the kubelet is actually running, broken down by lifecycle phase, whether the pod is desired, orphaned, or runtime only (also orphaned), and whether the pod is static. An orphaned pod has been removed from local configuration or force deleted in the API and consumes resources that are not otherwise visible.',
      ['lifecycle', 'config', 'static'],
      (g) => {
        const counts = new Map<string, number>();
        for (const lifecycle of ['sync', 'terminating', 'terminated'])
          for (const config of ['desired', 'orphan', 'runtime_only']) counts.set(`${lifecycle}/${config}`, 0);
        for (const [uid, state] of this.workers) {
          const lifecycle = LIFECYCLE[state];
          if (!lifecycle) continue;
          const config = this.engine.getPodByUID(uid)
            ? 'desired'
            : this.configured.has(uid)
              ? 'orphan'
              : 'runtime_only';
          const key = `${lifecycle}/${config}`;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        for (const [key, v] of counts) {
          const [lifecycle, config] = key.split('/') as [string, string];
          g.set({ lifecycle, config, static: '' }, v);
          g.set({ lifecycle, config, static: 'true' }, 0);
        }
      },
    );
    gauge('pleg_last_seen_seconds', 'Timestamp in seconds when PLEG was last seen active.', [], (g) => {
      if (this.lastRelistEnd !== undefined) g.set(s(this.lastRelistEnd));
    });
  }
}
