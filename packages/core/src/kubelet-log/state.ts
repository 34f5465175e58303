/**
 * What the importer remembers per node while it reads, and the rules that need memory: PLEG events seen twice
 * (the relist's "GenericPLEG"/"container finished" line and the loop's "SyncLoop (PLEG)" line) become one
 * event; a ContainerDied for a container never seen started gets an inferred ContainerStarted before it; the
 * same back-off line repeated at every sync while a pod waits becomes one window per restart. Recognisers
 * call these methods through the Ctx they are given; nothing here blocks.
 */
import type {
  PlegEventType,
  ProbeResult,
  ProbeType,
  TracePayload,
  UpdateType,
  WorkerState,
  WorkType,
} from '../events/trace.ts';
import type { Structured } from './kv.ts';
import { PodRegister } from './pods.ts';

type WithoutPod<T> = T extends unknown ? Omit<T, 'podUID' | 'pod'> : never;
/**
 * An event as a recogniser makes it: the pod may be named by UID, by name, or both; or by its name alone
 * (`podName`, no namespace), which the Interpreter looks up when the event leaves the reorder window, so a
 * line written just after it may still tell the pod.
 */
export type Draft = WithoutPod<TracePayload> & {
  podUID?: string;
  pod?: string;
  inferred?: boolean;
  podName?: string;
};

/** One kubelet log entry's message, as the recognisers see it. */
export interface Msg {
  /** the message text after the header (continuation lines joined with "\n") */
  text: string;
  /** the structured form (klog InfoS text or JSON), when the message has one */
  s?: Structured;
  level: string;
  source: string;
}

export interface Ctx {
  time: number;
  line: number;
  node: NodeState;
  emit(d: Draft): void;
}

/**
 * An event a recogniser emitted that still waits in the reorder window (the Interpreter numbers it only when it
 * leaves): a later line of the same action may still complete it.
 */
export function waiting(d: Draft): boolean {
  return (d as { seq?: number }).seq === 0;
}

/**
 * How long after a kubelet started again its PLEG's first relists report the containers the runtime already
 * held (the kubelet's own start, its pods' ADD and the first relist take seconds)
 */
const FIRST_RELIST_MS = 60_000;
/** how long a second report of the same PLEG event is taken as the same event */
const PLEG_SAME_MS = 60_000;

interface Window {
  delayS: number;
  until: number;
  /**
   * the pod's count of container starts (read or inferred) when the window opened: a restart since then opens a
   * new window
   */
  startMark: number;
}

export class NodeState {
  readonly pods = new PodRegister();
  readonly worker = new Map<string, WorkerState>();
  readonly updateType = new Map<string, UpdateType>();
  readonly syncEnter = new Map<string, number>();
  /**
   * The update an UpdatePod call's first line announced ("Pod is being synced for the first time", a teardown),
   * and the worker state it set, by pod, until the pod's next worker line: workers.ts merges the rest of the
   * same call into it. `before`: announced by a line written before the call (a pod restarted after its UID
   * came back), whose own first line then joins it.
   */
  readonly announced = new Map<string, { update: Draft; state: Draft | undefined; before?: boolean }>();
  /**
   * containers whose kill's grace period was overridden, until the kill's own line (kills.ts, glog from v1.14: the
   * override line first; before, the kill line first, and killRead below keeps it for the override line after)
   */
  readonly killOverride = new Set<string>();
  /** Events read from lines that printed them whole (a failed write), by the Event's name and Count, and when */
  readonly printedEvents = new Map<string, number>();
  /** when the node's last "SyncLoop (housekeeping)" began, until its end line */
  housekeepingAt: number | undefined;
  /** the StopContainer a kill's first line made, by container, while a later line of the same kill may complete it */
  readonly killRead = new Map<string, { stop: Extract<Draft, { type: 'runtime.call' }>; at: number }>();
  /**
   * Pods (ns/name) whose missing sandbox was read as a RunPodSandbox, when, with nothing since (no sync error, no
   * PLEG event); and pods deleted or removed since their last ADD. kills.ts uses both.
   */
  readonly sandboxAsked = new Map<string, number>();
  readonly gone = new Set<string>();
  /** when a failed pull of an image was last read (images.ts: one failure is written by two files) */
  readonly pullFailedAt = new Map<string, number>();
  /** ContainerDied events still without an exit code, by PLEG key, while they may get one */
  private readonly diedWithoutCode = new Map<string, Draft>();
  private readonly plegSeen = new Map<string, number>();
  private readonly started = new Map<string, Set<string>>();
  /** the pod's last container death, and its count of starts when it was read */
  private readonly lastDied = new Map<string, { time: number; exitCode?: number; starts: number }>();
  private readonly starts = new Map<string, number>();
  private readonly containerPod = new Map<string, string>();
  private readonly windows = new Map<string, Window>();
  private readonly imageFailures = new Map<string, number>();
  /** the node's entry still open for continuation lines (an Entry of parser.ts) */
  pending: unknown;
  /** some kubelet line came from this node */
  used = false;
  /** pods (by UID and by name) this log has said anything about so far */
  readonly touched = new Set<string>();

  /** the kubelet's process id its last line gave, and when a new process (a restart) began writing */
  private pid: number | undefined;
  restartedAt: number | undefined;

  constructor(readonly name: string) {}

  /**
   * The process a line of this node came from: another pid than the last (pid 1 aside: a kubelet in a container
   * is always 1) is the kubelet started again.
   */
  process(pid: number, time: number): void {
    if (pid === this.pid || pid <= 1) return;
    if (this.pid !== undefined) this.restartedAt = time;
    this.pid = pid;
  }

  /**
   * A PLEG event, once: the first report is kept, a second within a minute either side (the relist's line is
   * stamped before the loop's; a grep may print a line twice, or out of order) adds only its exit code.
   */
  pleg(ctx: Ctx, podUID: string, containerID: string, event: PlegEventType, exitCode?: number): void {
    const key = `${podUID}/${containerID}/${event}`;
    const seen = this.plegSeen.get(key);
    if (seen !== undefined && Math.abs(ctx.time - seen) < PLEG_SAME_MS) {
      if (exitCode !== undefined) this.addExitCode(key, podUID, exitCode);
      return;
    }
    this.plegSeen.set(key, ctx.time);
    if (this.plegSeen.size > 50_000) this.plegSeen.clear();
    let started = this.started.get(podUID);
    if (!started) {
      started = new Set();
      this.started.set(podUID, started);
    }
    if (event === 'ContainerStarted') started.add(containerID);
    this.sandboxAsked.delete(this.pods.podOf(podUID) ?? '');
    if (this.containerPod.size > 100_000) this.containerPod.clear();
    this.containerPod.set(containerID, podUID);
    if (event === 'ContainerDied') {
      const watched = this.touched.has(podUID) || this.touched.has(this.pods.podOf(podUID) ?? '');
      // a kubelet started again lists what the runtime holds: a container that exited before it is no new run
      const listed =
        this.restartedAt !== undefined &&
        ctx.time >= this.restartedAt &&
        ctx.time - this.restartedAt < FIRST_RELIST_MS;
      if (!started.has(containerID) && watched && !listed) {
        // it ran between two relists: the log shows it die but never start
        started.add(containerID);
        this.countStart(podUID);
        ctx.emit({ type: 'pleg.event', event: 'ContainerStarted', containerID, podUID, inferred: true });
      }
      const starts = this.starts.get(podUID) ?? 0;
      this.lastDied.set(
        podUID,
        exitCode === undefined ? { time: ctx.time, starts } : { time: ctx.time, exitCode, starts },
      );
    }
    if (event === 'ContainerStarted') this.countStart(podUID);
    const d: Draft = { type: 'pleg.event', event, containerID, podUID };
    if (exitCode !== undefined) (d as { exitCode?: number }).exitCode = exitCode;
    else if (event === 'ContainerDied') {
      if (this.diedWithoutCode.size > 10_000) this.diedWithoutCode.clear();
      this.diedWithoutCode.set(key, d);
    }
    ctx.emit(d);
  }

  /**
   * A restart is a start (read, or inferred from a death), not a death: a sync can meet the container dead, and
   * log its back-off, before the relist reports the death; the back-off lines after that report are the same
   * window.
   */
  private countStart(podUID: string): void {
    this.starts.set(podUID, (this.starts.get(podUID) ?? 0) + 1);
  }

  /**
   * At -v=4 the relist's "GenericPLEG … -> exited" comes before its "container finished … exitCode=N": the code
   * goes onto the ContainerDied already read, while it waits in the reorder window (seq still 0), and onto the
   * pod's last death for the back-off windows after it.
   */
  private addExitCode(key: string, podUID: string, exitCode: number): void {
    const d = this.diedWithoutCode.get(key) as (Draft & { exitCode?: number; time?: number }) | undefined;
    this.diedWithoutCode.delete(key);
    if (!d || !waiting(d)) return;
    d.exitCode = exitCode;
    const died = this.lastDied.get(podUID);
    if (died && died.time === d.time && died.exitCode === undefined) died.exitCode = exitCode;
  }

  /**
   * A back-off the kubelet reported (a sync error or an event): opens a window unless the same one is open.
   * The window starts when the container last died (the kubelet counts from its finish time), else now. A death
   * read before the pod's last start is an earlier run's: the run since then died unreported (a sync met it
   * dead before the relist said so), so the window starts now, when the kubelet said it waits, not at the
   * earlier death, which would end it a whole run too soon. (The kubelet's own back-off is by container; the
   * log's starts and deaths are read by pod, so a pod's other container starting in between does the same.)
   */
  backoff(
    ctx: Ctx,
    ref: { podUID?: string; pod?: string },
    kind: 'container' | 'image',
    container: string,
    delayS: number | undefined,
    image?: string,
    /** a failed pull: always the next step of the image back-off, never the window already open */
    failedPull = false,
  ): void {
    const who = ref.podUID ?? ref.pod ?? '';
    const key = `${who}/${kind}/${container}`;
    const mark = ref.podUID ? (this.starts.get(ref.podUID) ?? 0) : 0;
    const open = this.windows.get(key);
    if (kind === 'image' && delayS === undefined) {
      // the image back-off message carries no delay: the kubelet's image back-off starts at 10 s and doubles
      // up to 300 s per failed pull of the same image
      // (the pod's PLEG events do not count here: what starts while an image is pulled is the sandbox)
      if (!failedPull && open && ctx.time < open.until) return;
      const n = (this.imageFailures.get(key) ?? 0) + 1;
      this.imageFailures.set(key, n);
      delayS = Math.min(300, 10 * 2 ** (n - 1));
    }
    // a container's back-off always names its delay: a message cut before it (a pager's `>`) opens no window
    if (delayS === undefined) return;
    const d = delayS;
    if (
      !failedPull &&
      open &&
      open.delayS === d &&
      open.startMark === mark &&
      ctx.time <= open.until + d * 1000
    )
      return;
    const died = ref.podUID ? this.lastDied.get(ref.podUID) : undefined;
    const start =
      died && died.starts === mark && died.time <= ctx.time && ctx.time - died.time < d * 1000
        ? died.time
        : ctx.time;
    const w: Window = { delayS: d, until: start + d * 1000, startMark: mark };
    this.windows.set(key, w);
    const ev: Draft = {
      type: 'backoff',
      kind,
      container,
      key: `${ref.pod ?? who}/${container}`,
      delayS: d,
      until: w.until,
      // no restartCount: the log does not say the container's (the engine and an observer give the runtime's)
      ...ref,
    };
    if (image) (ev as { image?: string }).image = image;
    // the exit code is the run's whose death opens the window, not an earlier run's
    if (kind === 'container' && died?.exitCode !== undefined && died.starts === mark)
      (ev as { exitCode?: number }).exitCode = died.exitCode;
    ctx.emit(ev);
  }

  /** The pod a container belongs to, when a PLEG line said so. */
  podOfContainer(containerID: string): string | undefined {
    return this.containerPod.get(containerID);
  }

  /** A worker state change, emitted only when the state changes; the event made, if any. */
  workerTo(
    ctx: Ctx,
    podUID: string | undefined,
    pod: string | undefined,
    to: WorkerState,
  ): Draft | undefined {
    const key = podUID ?? pod ?? '';
    const from = this.worker.get(key) ?? null;
    if (from === to) return undefined;
    this.worker.set(key, to);
    const d: Draft = { type: 'worker.state', from, to, podUID, pod };
    ctx.emit(d);
    return d;
  }

  workTypeOf(podUID: string | undefined, pod: string | undefined): WorkType {
    const s = this.worker.get(podUID ?? pod ?? '');
    return s === 'TerminatingPod' || s === 'TerminatedPod' ? s : 'SyncPod';
  }
}

export const PROBE_TYPES: Record<string, ProbeType> = {
  liveness: 'Liveness',
  readiness: 'Readiness',
  startup: 'Startup',
};

export function probeResultOf(s: string): ProbeResult {
  const l = s.toLowerCase();
  if (l === 'success' || l === 'ready' || l === 'started' || l === 'healthy' || l === 'succeeded')
    return 'Success';
  if (l === 'failure' || l === 'unhealthy' || l === 'failed' || l === 'notready') return 'Failure';
  return 'Unknown';
}

/** seconds per unit (a negative number: units per second, so 300ms is exactly 0.3) */
const UNIT_S: Record<string, number> = { h: 3600, m: 60, s: 1, ms: -1e3, us: -1e6, µs: -1e6, ns: -1e9 };

/**
 * Go's time.Duration text (1m20s, 300ms, 5m0s) in seconds: each number with its unit, read once from left to
 * right (a run of digits without a unit is passed over once, never tried again from each of its digits).
 */
export function goDurationS(s: string): number | undefined {
  let total = 0;
  let any = false;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const start = i;
    while (i < n && isDigit(s.charCodeAt(i))) i++;
    if (i === start) {
      i++;
      continue;
    }
    if (s.charCodeAt(i) === 46 && isDigit(s.charCodeAt(i + 1))) {
      i++;
      while (i < n && isDigit(s.charCodeAt(i))) i++;
    }
    const num = s.slice(start, i);
    // the longest unit first: `ms` before `m`, `µs`/`us`/`ns` before `s`
    const two = s.slice(i, i + 2);
    const unit = UNIT_S[two] !== undefined ? two : UNIT_S[s[i] ?? ''] !== undefined ? (s[i] as string) : '';
    if (unit === '') continue;
    any = true;
    const per = UNIT_S[unit] as number;
    total += per > 0 ? Number(num) * per : Number(num) / -per;
    i += unit.length;
  }
  return any ? total : undefined;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
