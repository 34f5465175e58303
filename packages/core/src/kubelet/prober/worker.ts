/**
 * worker (pkg/kubelet/prober/worker.go): the periodic probing of one container for one probe type. Created
 * and started by ProberManager.addPod; runs until the pod is terminal, the container will never run again,
 * or stop() is called; then it drops its cached result and removes itself from the manager.
 *
 *   start ──[random·period, only if the manager started < 1 period ago]── doProbe ──tick── doProbe ── …
 *                                                                               └─manual trigger (resets the ticker)
 *
 * doProbe, in order (each line ends the run):
 *   no pod status                                  → wait (keep going)
 *   pod phase Succeeded/Failed                     → exit
 *   no status or no ID for the container           → wait
 *   new container ID                               → result := initial value (liveness Success, readiness
 *                                                    Failure, startup Unknown), lift the hold, go on
 *   on hold                                        → wait
 *   container not running                          → result := Failure; exit if it terminated and the pod's
 *                                                    restartPolicy is Never, else wait
 *   pod being deleted (liveness/startup)           → result := Success (quiet shutdown), exit
 *   running for less than initialDelaySeconds      → wait
 *   startup after Started / others before Started  → wait
 *   probe; an error is thrown away; a result is published once it has repeated failureThreshold (or
 *   successThreshold) times in a row; a published liveness or startup Failure puts the worker on hold until
 *   the container ID changes (the container is about to be killed and restarted).
 *
 * All timing is on the injected Clock. Probes of one worker never overlap: a tick that comes while a probe
 * runs is kept (one, like Go's ticker channel) and runs next.
 */
import type { Container, Pod, PodStatus, Probe } from '../../api/v1.ts';
import type { Clock, Timer } from '../../clock/clock.ts';
import type { ProbeResult, ProbeType } from '../../events/trace.ts';
import type { ProbeOutcome } from './prober.ts';
import type { ResultsManager } from './results-manager.ts';

/** What a worker needs from its manager. */
export interface WorkerHost {
  clock: Clock;
  random: () => number;
  /** when the prober manager was created (the kubelet's start) */
  start: number;
  getStatus(podUID: string): PodStatus | undefined;
  getPod(podUID: string): Pod | undefined;
  probe(
    probeType: ProbeType,
    pod: Pod,
    status: PodStatus,
    container: Container,
    containerID: string,
  ): Promise<ProbeOutcome>;
  /** counts prober_probe_total */
  countResult(w: Worker, result: ProbeResult): void;
  /** called once when the worker exits */
  removeWorker(w: Worker): void;
}

const INITIAL_VALUE: Record<ProbeType, ProbeResult> = {
  Liveness: 'Success',
  Readiness: 'Failure',
  Startup: 'Unknown',
};

type Wake = 'tick' | 'manual' | 'stop';

export class Worker {
  readonly spec: Probe;
  readonly initialValue: ProbeResult;

  /** the last container ID seen, in the API form ("" until one is seen) */
  containerID = '';
  lastResult: ProbeResult | undefined;
  /** how many times in a row the probe returned lastResult */
  resultRun = 0;
  /** skip probing until the container ID changes */
  onHold = false;

  private stopped = false;
  private exited = false;
  private ticker: Timer | undefined;
  private startTimer: Timer | undefined;
  private pendingTick = false;
  private pendingManual = false;
  private waiter: ((w: Wake) => void) | undefined;

  constructor(
    private readonly host: WorkerHost,
    readonly probeType: ProbeType,
    readonly pod: Pod,
    readonly container: Container,
    readonly resultsManager: ResultsManager,
  ) {
    const spec =
      probeType === 'Liveness'
        ? container.livenessProbe
        : probeType === 'Readiness'
          ? container.readinessProbe
          : container.startupProbe;
    if (!spec) throw new Error(`container ${container.name} has no ${probeType} probe`);
    this.spec = spec;
    this.initialValue = INITIAL_VALUE[probeType];
  }

  get podUID(): string {
    return this.pod.metadata.uid ?? '';
  }

  get periodMs(): number {
    return (this.spec.periodSeconds || 10) * 1000;
  }

  /** Starts the loop (asynchronously; the caller never waits on a probe). */
  run(): void {
    const period = this.periodMs;
    const { clock } = this.host;
    // After a restart every worker would probe at once; spread the first runs over one period.
    if (period > clock.since(this.host.start)) {
      this.startTimer = clock.setTimer(this.host.random() * period, () => {
        this.startTimer = undefined;
        void this.loop();
      });
    } else {
      void Promise.resolve().then(() => this.loop());
    }
  }

  /** Stops the worker; it cleans up and removes itself. Safe to call more than once. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.startTimer) {
      this.startTimer.stop();
      this.startTimer = undefined;
      this.exit();
      return;
    }
    this.wake('stop');
  }

  /** Runs a probe now and restarts the period from here (UpdatePodStatus, readiness without a result). */
  manualTrigger(): void {
    this.pendingManual = true;
    this.wake('manual');
  }

  get done(): boolean {
    return this.exited;
  }

  private async loop(): Promise<void> {
    if (this.stopped) return this.exit();
    this.ticker = this.newTicker();
    try {
      while (await this.doProbe()) {
        const why = await this.next();
        if (why === 'stop') break;
        if (why === 'manual') {
          this.ticker.stop();
          this.ticker = this.newTicker();
          this.pendingTick = false;
        }
      }
    } finally {
      this.exit();
    }
  }

  private newTicker(): Timer {
    return this.host.clock.setTicker(this.periodMs, () => {
      this.pendingTick = true;
      this.wake('tick');
    });
  }

  private next(): Promise<Wake> {
    if (this.stopped) return Promise.resolve('stop');
    if (this.pendingManual) {
      this.pendingManual = false;
      return Promise.resolve('manual');
    }
    if (this.pendingTick) {
      this.pendingTick = false;
      return Promise.resolve('tick');
    }
    return new Promise<Wake>((resolve) => {
      this.waiter = (w) => {
        if (w === 'manual') this.pendingManual = false;
        if (w === 'tick') this.pendingTick = false;
        resolve(w);
      };
    });
  }

  private wake(w: Wake): void {
    const fn = this.waiter;
    if (!fn) return;
    this.waiter = undefined;
    fn(w);
  }

  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.ticker?.stop();
    if (this.containerID) this.resultsManager.remove(this.containerID);
    this.host.removeWorker(this);
  }

  /** One probe round; returns whether the worker should keep going. */
  async doProbe(): Promise<boolean> {
    const status = this.host.getStatus(this.podUID);
    if (!status) return true; // not created yet, or already deleted
    if (status.phase === 'Failed' || status.phase === 'Succeeded') return false;

    let c = status.containerStatuses?.find((s) => s.name === this.container.name);
    if (!c?.containerID) c = status.initContainerStatuses?.find((s) => s.name === this.container.name);
    if (!c?.containerID) return true; // not created yet, or removed

    // The newest copy of the pod: deletion and restartPolicy as the pod manager knows them now.
    const pod = this.host.getPod(this.podUID) ?? this.pod;

    if (this.containerID !== c.containerID) {
      if (this.containerID) this.resultsManager.remove(this.containerID);
      this.containerID = c.containerID;
      this.resultsManager.set(this.containerID, this.initialValue, pod);
      this.onHold = false; // a new container: probe again
    }
    if (this.onHold) return true;

    if (!c.state.running) {
      this.resultsManager.set(this.containerID, 'Failure', pod);
      // Exit only when the container will never run again.
      return c.state.terminated === undefined || pod.spec.restartPolicy !== 'Never';
    }

    if (pod.metadata.deletionTimestamp && (this.probeType === 'Liveness' || this.probeType === 'Startup')) {
      this.resultsManager.set(this.containerID, 'Success', pod); // a quiet shutdown
      return false;
    }

    const startedAt = c.state.running.startedAt ? Date.parse(c.state.running.startedAt) : Number.NaN;
    const runningFor = Number.isNaN(startedAt) ? Number.POSITIVE_INFINITY : this.host.clock.since(startedAt);
    if (Math.trunc(runningFor / 1000) < (this.spec.initialDelaySeconds ?? 0)) return true;

    if (c.started === true) {
      if (this.probeType === 'Startup') return true; // kept for the next container instance
    } else if (this.probeType !== 'Startup') {
      return true; // liveness and readiness wait for the startup probe
    }

    const outcome = await this.host.probe(this.probeType, pod, status, this.container, this.containerID);
    if (outcome.error !== undefined) return true; // an error is thrown away
    const result = outcome.result;
    this.host.countResult(this, result);

    if (this.lastResult === result) this.resultRun++;
    else {
      this.lastResult = result;
      this.resultRun = 1;
    }
    if (
      (result === 'Failure' && this.resultRun < (this.spec.failureThreshold || 3)) ||
      (result === 'Success' && this.resultRun < (this.spec.successThreshold || 1))
    ) {
      return true; // below the threshold: the published result stays
    }

    this.resultsManager.set(this.containerID, result, pod);
    if ((this.probeType === 'Liveness' || this.probeType === 'Startup') && result === 'Failure') {
      // The container is going to be restarted; do not exec into it while it is being killed.
      this.onHold = true;
      this.resultRun = 0;
    }
    return true;
  }
}
