/**
 * ProberManager (pkg/kubelet/prober/prober_manager.go): one probe worker per (pod, container, probe type) for
 * regular containers and sidecars (restartable init containers), three result caches, and the mapping of
 * those results onto a PodStatus's `started` and `ready`.
 *
 * Who calls what (all calls return at once; probing happens on the workers' own timers):
 *   addPod(pod)                    SyncPod, every sync; workers that exist already are kept
 *   stopLivenessAndStartup(pod)    SyncTerminatingPod, before the containers are killed
 *   removePod(pod)                 SyncTerminatedPod / after the kill: stops every worker of the pod
 *   cleanupPods(desiredUIDs)       HandlePodCleanups: stops workers of pods no longer desired
 *   updatePodStatus(pod, status)   generateAPIPodStatus: fills started/ready in place
 *   liveness/readiness/startupManager.get(id)   computePodActions (liveness/startup Failure → kill)
 *
 * Results reach the sync loop in either of two ways (use one, not both): select on the three managers'
 * `updates` channels (the kubelet's shape), or subscribe with `onUpdate`, which drains those channels.
 * The sync loop acts on an update as syncLoopIteration does (see `probeUpdateSyncStatus`).
 */
import type { ContainerStatus, Pod, PodStatus } from '../../api/v1.ts';
import type { Clock } from '../../clock/clock.ts';
import type { CriRuntime } from '../../cri/types.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { ProbeResult, ProbeType } from '../../events/trace.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import { type NetProber, nodeNetProber } from './net-prober.ts';
import { Prober } from './prober.ts';
import { type ProbeUpdate, ResultsManager } from './results-manager.ts';
import { Worker, type WorkerHost } from './worker.ts';

export interface ProberManagerDeps {
  cri: Pick<CriRuntime, 'execSync'>;
  clock: Clock;
  trace: TraceRecorder;
  recorder: EventRecorder;
  /** defaults to the real network (node:http / node:net) */
  netProber?: NetProber;
  /** [0, 1), for the first run's spread; defaults to Math.random */
  random?: () => number;
  /** the pod manager's current copy of the pod */
  getPod(uid: string): Pod | undefined;
  /** the status manager's current status of the pod */
  getStatus(uid: string): PodStatus | undefined;
}

export interface ProberUpdate extends ProbeUpdate {
  probeType: ProbeType;
}

/**
 * What syncLoopIteration does with a probe update: the status word it logs, or undefined when the update
 * causes no sync. Liveness syncs only on Failure; readiness and startup sync on every change (after the status
 * manager records the new ready/started value).
 */
export function probeUpdateSyncStatus(u: ProberUpdate): string | undefined {
  switch (u.probeType) {
    case 'Liveness':
      return u.result === 'Failure' ? 'unhealthy' : undefined;
    case 'Readiness':
      return u.result === 'Success' ? 'ready' : '';
    case 'Startup':
      return u.result === 'Success' ? 'started' : 'unhealthy';
  }
}

/** prober_probe_total labels ("result" is successful | failed | unknown). */
export interface ProbeTotalLabels {
  probe_type: ProbeType;
  result: 'successful' | 'failed' | 'unknown';
  container: string;
  pod: string;
  namespace: string;
  pod_uid: string;
}

const PROBE_ORDER: readonly ProbeType[] = ['Startup', 'Readiness', 'Liveness'];

function keyOf(podUID: string, containerName: string, probeType: ProbeType): string {
  return `${podUID}/${containerName}/${probeType}`;
}

function isRestartableInit(c: { restartPolicy?: string }): boolean {
  return c.restartPolicy === 'Always';
}

export class ProberManager {
  readonly livenessManager = new ResultsManager('Liveness');
  readonly readinessManager = new ResultsManager('Readiness');
  readonly startupManager = new ResultsManager('Startup');
  /** when this manager was created: workers started within one period of it spread their first run */
  readonly start: number;

  private readonly workers = new Map<string, Worker>();
  private readonly prober: Prober;
  private readonly host: WorkerHost;
  private readonly totals = new Map<string, { labels: ProbeTotalLabels; value: number }>();
  private readonly listeners = new Set<(u: ProberUpdate) => void>();
  private pumping = false;

  constructor(deps: ProberManagerDeps) {
    this.start = deps.clock.now();
    this.prober = new Prober({
      cri: deps.cri,
      netProber: deps.netProber ?? nodeNetProber,
      recorder: deps.recorder,
      trace: deps.trace,
    });
    this.host = {
      clock: deps.clock,
      random: deps.random ?? Math.random,
      start: this.start,
      getStatus: (uid) => deps.getStatus(uid),
      getPod: (uid) => deps.getPod(uid),
      probe: (t, pod, status, c, id) => this.prober.probe(t, pod, status, c, id),
      countResult: (w, r) => this.countResult(w, r),
      removeWorker: (w) => this.removeWorker(w),
    };
  }

  resultsManager(probeType: ProbeType): ResultsManager {
    return probeType === 'Liveness'
      ? this.livenessManager
      : probeType === 'Readiness'
        ? this.readinessManager
        : this.startupManager;
  }

  /** AddPod: starts a worker for every probe of every regular container and sidecar that has none yet. */
  addPod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const containers = [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter(isRestartableInit)];
    for (const c of containers) {
      for (const t of PROBE_ORDER) {
        const spec =
          t === 'Startup' ? c.startupProbe : t === 'Readiness' ? c.readinessProbe : c.livenessProbe;
        if (!spec) continue;
        const key = keyOf(uid, c.name, t);
        // As the kubelet does, a worker that exists already ends the whole call.
        if (this.workers.has(key)) return;
        const w = new Worker(this.host, t, pod, c, this.resultsManager(t));
        this.workers.set(key, w);
        w.run();
      }
    }
  }

  /** StopLivenessAndStartup: during termination, so a dying container is not restarted by a probe. */
  stopLivenessAndStartup(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    for (const c of pod.spec.containers) {
      for (const t of ['Liveness', 'Startup'] as const) this.workers.get(keyOf(uid, c.name, t))?.stop();
    }
  }

  /** RemovePod: stops every worker of the pod; each drops its cached result as it exits. */
  removePod(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    const containers = [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter(isRestartableInit)];
    for (const c of containers) {
      for (const t of ['Readiness', 'Liveness', 'Startup'] as const)
        this.workers.get(keyOf(uid, c.name, t))?.stop();
    }
  }

  /** CleanupPods: stops the workers of every pod not in desiredUIDs. */
  cleanupPods(desiredUIDs: Set<string>): void {
    for (const w of [...this.workers.values()]) if (!desiredUIDs.has(w.podUID)) w.stop();
  }

  /**
   * UpdatePodStatus: sets `started` on every container and sidecar status, and `ready` on the started ones:
   * ready when the readiness result is Success, or when there is no readiness probe. A readiness worker that
   * has no result yet is triggered to probe at once. A regular init container is ready once it exited 0.
   * Mutates `status` in place.
   */
  updatePodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata.uid ?? '';
    for (const c of status.containerStatuses ?? []) this.updateContainer(uid, c);
    for (const c of status.initContainerStatuses ?? []) {
      const spec = pod.spec.initContainers?.find((x) => x.name === c.name);
      c.started = this.isContainerStarted(uid, c);
      if (!spec) continue;
      if (!isRestartableInit(spec)) {
        if (c.state.terminated && c.state.terminated.exitCode === 0) c.ready = true;
        continue;
      }
      this.updateContainer(uid, c);
    }
  }

  /** Subscribes to every probe result change (drains the three `updates` channels); returns unsubscribe. */
  onUpdate(fn: (u: ProberUpdate) => void): () => void {
    this.listeners.add(fn);
    if (!this.pumping) {
      this.pumping = true;
      for (const m of [this.livenessManager, this.readinessManager, this.startupManager]) {
        const drain = () => {
          if (this.listeners.size === 0) return;
          for (let got = m.updates.tryReceive(); got; got = m.updates.tryReceive()) {
            const u: ProberUpdate = { ...got.value, probeType: m.probeType };
            for (const l of this.listeners) l(u);
          }
        };
        m.updates.onReady(() => queueMicrotask(drain));
        queueMicrotask(drain);
      }
    }
    return () => this.listeners.delete(fn);
  }

  /** Number of live workers (tests, /api/v1/node). */
  workerCount(): number {
    return this.workers.size;
  }

  /** The worker for (pod, container, probe type), if one runs. */
  getWorker(podUID: string, containerName: string, probeType: ProbeType): Worker | undefined {
    return this.workers.get(keyOf(podUID, containerName, probeType));
  }

  /** prober_probe_total samples of the live workers. */
  probeTotals(): { labels: ProbeTotalLabels; value: number }[] {
    return [...this.totals.values()].map((s) => ({ labels: { ...s.labels }, value: s.value }));
  }

  private updateContainer(uid: string, c: ContainerStatus): void {
    const started = this.isContainerStarted(uid, c);
    c.started = started;
    if (!started) return;
    let ready: boolean;
    if (!c.state.running) ready = false;
    else if (c.containerID && this.readinessManager.get(c.containerID) === 'Success') ready = true;
    else {
      const w = this.getWorker(uid, c.name, 'Readiness');
      ready = w === undefined; // no readiness probe: ready once started
      w?.manualTrigger();
    }
    c.ready = ready;
  }

  private isContainerStarted(uid: string, c: ContainerStatus): boolean {
    if (!c.state.running) return false;
    const r = c.containerID ? this.startupManager.get(c.containerID) : undefined;
    if (r !== undefined) return r === 'Success';
    // A startup probe that has not answered yet: not started. No startup probe: started.
    return this.getWorker(uid, c.name, 'Startup') === undefined;
  }

  private removeWorker(w: Worker): void {
    const key = keyOf(w.podUID, w.container.name, w.probeType);
    if (this.workers.get(key) === w) this.workers.delete(key);
    for (const k of [...this.totals.keys()]) if (k.startsWith(`${key}/`)) this.totals.delete(k);
  }

  private countResult(w: Worker, r: ProbeResult): void {
    const result = r === 'Success' ? 'successful' : r === 'Failure' ? 'failed' : 'unknown';
    const key = `${keyOf(w.podUID, w.container.name, w.probeType)}/${result}`;
    const s = this.totals.get(key);
    if (s) s.value++;
    else {
      const labels: ProbeTotalLabels = {
        probe_type: w.probeType,
        result,
        container: w.container.name,
        pod: w.pod.metadata.name,
        namespace: w.pod.metadata.namespace ?? 'default',
        pod_uid: w.podUID,
      };
      this.totals.set(key, { labels, value: 1 });
    }
  }
}
