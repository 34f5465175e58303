/**
 * The observed kubelet's crash-loop back-off, worked out from what the runtime shows. The kubelet keeps one
 * window per pod and container (10 s, doubled at each restart up to 5 min, forgotten once the container ran
 * for longer than the reset period, 10 min): at a sync after an exit, a container whose last instance
 * finished less than the window ago is left in back-off; otherwise it is started and the window steps.
 *
 * An observer cannot see the sync, only its effects, so it keeps the same table with the same rule, driven by
 * the PLEG: an exit (`exited`) opens a window when one is already on record (the first exit restarts at
 * once), and a new instance of a container that had exited (`restarted`) steps it, at the time the start was
 * seen (within one relist of the kubelet's own step). Each window is recorded as a `backoff` trace event with
 * `inferred: true`. When the kubelet's log states a window (`confirm`), it is recorded again with
 * `confirmed: true` and its delay replaces ours from then on; true when it was recorded (a repeat of the
 * same window for the same exit is not).
 *
 * Called from the observer's PLEG consumer and from the log join (log-events.ts), both on the event loop;
 * every method returns at once.
 */
import type { PassiveClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { PodRef } from '@syncscope/core/events/trace';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { ContainerStatusRT } from '@syncscope/core/kubelet/container/runtime';

export type BackoffRule = Pick<
  KubeletConfiguration,
  'containerBackOffPeriodMs' | 'maxContainerBackOffMs' | 'containerBackOffResetMs'
>;

interface Window {
  windowMs: number;
  lastUpdate: number;
}

interface LastExit {
  finishedAt: number;
  exitCode: number;
  restartCount: number;
}

/**
 * When the instance before `c` (a container instance seen for the first time) finished, as far as the runtime
 * and what was seen before tell: the previous instance's exit when the runtime still lists it, else the last exit
 * on record (`lastExitAt`); else, when `c` counts restarts, some instance before it exited before `c` was created
 * although none was seen (it ran and was removed between two relists): the kubelet stepped the window when it
 * created `c` all the same. Undefined: `c` is the container's first instance.
 */
export function previousExitAt(
  listed: readonly ContainerStatusRT[],
  c: ContainerStatusRT,
  lastExitAt: number | undefined,
): number | undefined {
  const prev = listed.find(
    (x) => x.name === c.name && x.id !== c.id && x.state === 'exited' && x.createdAt <= c.createdAt,
  );
  return prev?.finishedAt ?? lastExitAt ?? (c.restartCount > 0 ? c.createdAt : undefined);
}

export class InferredBackoff {
  private readonly windows = new Map<string, Window>();
  private readonly exits = new Map<string, LastExit>();
  /** per key: the exit (finish time) the log last confirmed a window for, and that window */
  private readonly confirmed = new Map<string, { exitAt: number; delayS: number }>();

  constructor(
    private readonly clock: PassiveClock,
    private readonly trace: Pick<TraceRecorder, 'record'>,
    private readonly rule: BackoffRule,
  ) {}

  /** The window is forgotten when the failure comes more than the reset period after its last step. */
  private live(key: string, eventTime: number): Window | undefined {
    const w = this.windows.get(key);
    return w && eventTime - w.lastUpdate <= this.rule.containerBackOffResetMs ? w : undefined;
  }

  /** The key the window is kept under: pod and container, as the kubelet keys it. */
  static key(podUID: string, container: string): string {
    return `${podUID}_${container}`;
  }

  /** The current window of a container in ms (0: none on record). */
  windowMs(podUID: string, container: string): number {
    return this.windows.get(InferredBackoff.key(podUID, container))?.windowMs ?? 0;
  }

  /** When the last exit on record of `container` finished (undefined: none seen). */
  lastExitAt(podUID: string, container: string): number | undefined {
    return this.exits.get(InferredBackoff.key(podUID, container))?.finishedAt;
  }

  /**
   * An instance of `container` was seen exited. Records the window the kubelet will hold the restart for,
   * when it holds one: a window is on record and it has not expired by the finish time.
   */
  exited(ref: PodRef, container: string, finishedAt: number, exitCode: number, restartCount: number): void {
    const key = InferredBackoff.key(ref.podUID, container);
    const last = this.exits.get(key);
    if (last && last.finishedAt === finishedAt) return; // the same exit seen again (a re-read status)
    this.exits.set(key, { finishedAt, exitCode, restartCount });
    const windowMs = this.live(key, finishedAt)?.windowMs;
    if (windowMs === undefined) return;
    // the log already stated the window of this exit (its line came before our relist saw the exit)
    const said = this.confirmed.get(key);
    if (said && said.exitAt >= finishedAt) return;
    this.trace.record({
      type: 'backoff',
      kind: 'container',
      ...ref,
      container,
      key,
      delayS: windowMs / 1000,
      until: finishedAt + windowMs,
      exitCode,
      restartCount,
      inferred: true,
    });
  }

  /**
   * A new instance of `container` was started at `at` (default now) after an exited one finished at
   * `previousFinishedAt`: the kubelet stepped the window when it started it.
   */
  restarted(ref: PodRef, container: string, previousFinishedAt: number, at = this.clock.now()): void {
    const key = InferredBackoff.key(ref.podUID, container);
    const w = this.live(key, previousFinishedAt);
    const windowMs = w
      ? Math.min(w.windowMs * 2, this.rule.maxContainerBackOffMs)
      : this.rule.containerBackOffPeriodMs;
    this.windows.set(key, { windowMs, lastUpdate: at });
  }

  /**
   * The kubelet's log stated the window ("back-off 40s restarting failed container=…"): recorded as
   * confirmed, counted from the container's last observed exit (else from `time`), and kept as the window.
   */
  confirm(ref: PodRef, container: string, delayS: number, time: number): boolean {
    const key = InferredBackoff.key(ref.podUID, container);
    const last = this.exits.get(key);
    const from = last && last.finishedAt <= time ? last.finishedAt : time;
    const said = this.confirmed.get(key);
    // the kubelet repeats the line at every sync inside the window: one confirmation per exit and delay
    if (said && said.delayS === delayS && said.exitAt === from) return false;
    this.confirmed.set(key, { exitAt: from, delayS });
    this.windows.set(key, { windowMs: delayS * 1000, lastUpdate: this.windows.get(key)?.lastUpdate ?? time });
    this.trace.record({
      type: 'backoff',
      kind: 'container',
      ...ref,
      container,
      key,
      delayS,
      until: from + delayS * 1000,
      ...(last ? { exitCode: last.exitCode, restartCount: last.restartCount } : {}),
      confirmed: true,
    });
    return true;
  }

  /** The pod left the runtime: its windows go with it. */
  forget(podUID: string): void {
    const prefix = `${podUID}_`;
    for (const m of [this.exits, this.windows, this.confirmed] as Map<string, unknown>[]) {
      for (const key of [...m.keys()]) if (key.startsWith(prefix)) m.delete(key);
    }
  }
}
