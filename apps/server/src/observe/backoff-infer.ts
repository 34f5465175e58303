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
 * `confirmed: true` and its delay replaces ours from then on.
 *
 * Which exit a stated window belongs to: the log and the relist race. The kubelet says "back-off 20s" at the
 * syncs after an exit; its log may reach us before our relist shows that exit, when the last exit on record
 * is the one before, whose window was 10 s. So a line the last exit on record cannot explain (a delay past
 * that exit's window, or a time past `finishedAt + delay`, where IsInBackOffSince is false) is held:
 *
 *   line at t ──▶ held ── relist listed after t ── next relist ──▶ the last exit on record
 *                   └── an exit at or before t is seen ──▶ that exit
 *
 * A kubelet whose sync read a stale status does say the doubled delay about the old exit; then no newer exit
 * shows up, and the line goes to the old exit. A line for a container with no exit on record is held the same
 * way, and counted from its own time when none shows up.
 *
 * Called from the observer's PLEG consumer, its relist (`relisted`) and the log join (log-events.ts), all on
 * the event loop; every method returns at once.
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

/** Held lines kept per container; past it the oldest goes to the exit it was held against. */
const MAX_HELD_CONFIRMATIONS = 4;

interface Window {
  windowMs: number;
  lastUpdate: number;
}

interface Exit {
  finishedAt: number;
  exitCode: number;
  restartCount: number;
  /** the window on record when the exit was seen (0: none, the kubelet restarts at once) */
  windowMs: number;
}

/** A stated window waiting for a relist to show which exit it is about. */
interface Held {
  ref: PodRef;
  container: string;
  delayS: number;
  time: number;
  /** the last exit on record when the line came */
  exit: Exit | undefined;
  heldAt: number;
  /** a relist listed after `heldAt` has been seen: at the next one, its events have been read */
  listed: boolean;
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

/** Could the kubelet have stated `delayMs` at `time` about exit `e`: its window allows it and is not over. */
function explains(e: Exit, delayMs: number, time: number): boolean {
  return delayMs <= e.windowMs && time - e.finishedAt < delayMs;
}

export class InferredBackoff {
  private readonly windows = new Map<string, Window>();
  private readonly exits = new Map<string, Exit>();
  /** per key: the exit (finish time) the log last confirmed a window for, and that window */
  private readonly confirmed = new Map<string, { exitAt: number; delayS: number }>();
  private readonly held = new Map<string, Held[]>();

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
   * when it holds one: a window is on record and it has not expired by the finish time. Lines held for a
   * later exit are settled: those stated at or after this finish belong to it.
   */
  exited(ref: PodRef, container: string, finishedAt: number, exitCode: number, restartCount: number): void {
    const key = InferredBackoff.key(ref.podUID, container);
    const last = this.exits.get(key);
    if (last && last.finishedAt === finishedAt) return; // the same exit seen again (a re-read status)
    const windowMs = this.live(key, finishedAt)?.windowMs;
    const exit: Exit = { finishedAt, exitCode, restartCount, windowMs: windowMs ?? 0 };
    this.exits.set(key, exit);
    const said = this.confirmed.get(key);
    // a window the log stated from its own time, for an exit not seen then, covers this one
    if (windowMs !== undefined && !(said && said.exitAt >= finishedAt)) {
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
    const held = this.held.get(key);
    if (!held || (last && finishedAt < last.finishedAt)) return; // an older instance, read late
    this.held.delete(key);
    for (const h of held) this.apply({ ...h, exit: finishedAt <= h.time ? exit : h.exit });
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
   * The kubelet's log stated the window ("back-off 40s restarting failed container=…") at `time`. Recorded as
   * confirmed, counted from the exit it is about, and kept as the window; a line the last exit on record
   * cannot explain waits for the relist (see above). True when taken (recorded, or held); false for a repeat
   * (the kubelet says it at every sync inside the window), recorded once per exit and delay.
   */
  confirm(ref: PodRef, container: string, delayS: number, time: number): boolean {
    const key = InferredBackoff.key(ref.podUID, container);
    const last = this.exits.get(key);
    // about an exit before the last one on record: counted from its own time
    if (last && last.finishedAt > time) return this.apply({ ref, container, delayS, time, exit: undefined });
    const line = { ref, container, delayS, time, exit: last };
    if (last && explains(last, delayS * 1000, time)) return this.apply(line);
    // a line taken already (a stale one, for the last exit), said again while its window runs
    const said = this.confirmed.get(key);
    const from = last?.finishedAt ?? time;
    if (said?.exitAt === from && said.delayS === delayS && time - from < delayS * 1000) return false;
    const held = this.held.get(key) ?? [];
    if (held.some((h) => h.delayS === delayS && h.exit === last)) return false;
    held.push({ ...line, heldAt: this.clock.now(), listed: false });
    if (held.length > MAX_HELD_CONFIRMATIONS) this.apply(held.shift() as Held);
    this.held.set(key, held);
    return true;
  }

  /**
   * The observer's relist listed the runtime; `at`: when it asked. Held lines whose relist has been read since
   * go to the exit they were held against: no later exit showed up.
   */
  relisted(at: number): void {
    for (const [key, held] of this.held) {
      const waiting = held.filter((h) => !h.listed);
      for (const h of held) if (h.listed) this.apply(h);
      for (const h of waiting) h.listed = at >= h.heldAt;
      if (waiting.length > 0) this.held.set(key, waiting);
      else this.held.delete(key);
    }
  }

  /** Records a stated window about `exit` (none: counted from the line's time); false for a repeat. */
  private apply(line: Omit<Held, 'heldAt' | 'listed'>): boolean {
    const { ref, container, delayS, time, exit } = line;
    const key = InferredBackoff.key(ref.podUID, container);
    const from = exit?.finishedAt ?? time;
    const said = this.confirmed.get(key);
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
      ...(exit ? { exitCode: exit.exitCode, restartCount: exit.restartCount } : {}),
      confirmed: true,
    });
    return true;
  }

  /** The pod left the runtime: its windows go with it. */
  forget(podUID: string): void {
    const prefix = `${podUID}_`;
    for (const m of [this.exits, this.windows, this.confirmed, this.held] as Map<string, unknown>[]) {
      for (const key of [...m.keys()]) if (key.startsWith(prefix)) m.delete(key);
    }
  }
}
