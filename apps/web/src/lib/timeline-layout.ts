/**
 * The layout of one pod's timeline, as plain data with times (ms on the engine's clock): the pod worker's
 * state band, one lane per container instance, PLEG marks, SyncPod marks, backoff windows, probe results
 * and Events. The
 * Timeline component only maps these times to pixels.
 *
 * Container instances are pieced together from three sources, since no single event tells the whole story:
 *   runtime.call CreateContainer / StartContainer   when the kubelet created and started it (by name)
 *   pleg.event ContainerStarted / ContainerDied      when the runtime saw it run and exit (by container ID)
 *   status.update                                    its ID, exit code and reason as the status reports them
 * An instance is matched by container ID where one is known, else it is the newest instance of that
 * container name that still lacks the fact being added.
 */
import { type ContainerStatus, parseRFC3339 } from '@syncscope/core/api';
import type {
  PlegEventType,
  ProbeResult,
  ProbeType,
  SyncAction,
  TraceEvent,
  WorkerState,
  WorkType,
} from '@syncscope/core/trace';
import { statedDurationMs } from './provenance.ts';

export interface WorkerBand {
  state: WorkerState;
  start: number;
  end: number;
  /** Still the current state (the band runs to the layout's end). */
  open: boolean;
  /** A state a kubelet log's lines imply (no worker line for it): the rule, drawn hatched with it as title. */
  rule?: string;
  /** The worker.state event that began it (a band the reducer infers has none). */
  seq?: number;
}

/** A graceful termination's deadline: the first kill of the terminating pod plus the grace period it sent. */
interface GraceMark {
  gracePeriodS: number;
  start: number;
  deadline: number;
  seq: number;
  line?: number;
}

type LaneSegmentKind = 'created' | 'running' | 'exited';
export interface LaneSegment {
  kind: LaneSegmentKind;
  start: number;
  end: number;
  /** Runs to the layout's end (nothing has ended it yet). */
  open?: boolean;
}

export interface ContainerLane {
  key: string;
  name: string;
  init: boolean;
  attempt: number | null;
  containerID: string | null;
  createdAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  exitCode: number | null;
  reason: string | null;
  /** The error of a failed CreateContainer / StartContainer call. */
  error: string | null;
  segments: LaneSegment[];
  /** A folded lane (lib/timeline-fold.ts): every run of the container, oldest first. */
  runs?: LaneRun[];
}

/** One run of a container on a folded lane, drawn as a mark at its start with its exit. */
export interface LaneRun {
  attempt: number | null;
  start: number;
  end: number | null;
  exitCode: number | null;
  reason: string | null;
  error: string | null;
}

interface PlegMark {
  seq: number;
  time: number;
  event: PlegEventType;
  containerID: string;
  containerName: string | null;
  /** a kubelet log implies it without a line for it (the importer's rule): drawn hollow, dashed */
  inferred?: true;
}

interface SyncMark {
  seq: number;
  start: number;
  end: number;
  workType: WorkType;
  actions: SyncAction[];
  error: string | null;
  failed: boolean;
  /** false when the trace gives no duration (a kubelet log's sync error: the run's start is unknown) */
  durationStated: boolean;
}

interface BackoffWindow {
  seq: number;
  kind: 'container' | 'image';
  container: string;
  delayS: number;
  start: number;
  end: number;
}

interface ProbeMark {
  seq: number;
  time: number;
  container: string;
  probe: ProbeType;
  result: ProbeResult;
  output: string | null;
}

interface EventMark {
  seq: number;
  time: number;
  eventType: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** A worker update (or the config op before it) on the "updates" row. */
interface UpdateMark {
  seq: number;
  time: number;
  kind: 'config' | 'update';
  label: string;
}

/** A fault injected on the simulated node: a point, or a span for an outage. */
export interface FaultMark {
  seq: number;
  time: number;
  /** An outage's end (when it ran out or was cleared); absent for a point fault. */
  end?: number;
  label: string;
  detail: string;
}

export interface TimelineLayout {
  start: number;
  end: number;
  /** The pod worker finished with the pod: the timeline ends with its last event, not at now. */
  finished: boolean;
  workerBands: WorkerBand[];
  /** set by withReducedWorker (lib/worker-facts.ts) */
  grace?: GraceMark;
  lanes: ContainerLane[];
  pleg: PlegMark[];
  syncs: SyncMark[];
  backoffs: BackoffWindow[];
  probes: ProbeMark[];
  events: EventMark[];
  updates: UpdateMark[];
  faults: FaultMark[];
  /** Restarts of the Syncscope server during the pod's life (`server.start`): the engine adopted the pod. */
  restarts: { seq: number; time: number }[];
}

/** "containerd://abc" and "abc" name the same container. */
function bareContainerID(id: string | undefined | null): string | null {
  if (!id) return null;
  const i = id.indexOf('://');
  return i >= 0 ? id.slice(i + 3) : id;
}

type Instance = Omit<ContainerLane, 'segments' | 'key'>;

class InstanceTable {
  readonly list: Instance[] = [];

  byID(id: string | null): Instance | undefined {
    return id ? this.list.find((c) => c.containerID === id) : undefined;
  }

  /** The newest instance of `name` for which `lacks` holds. */
  newest(name: string | null | undefined, lacks: (c: Instance) => boolean): Instance | undefined {
    if (!name) return undefined;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const c = this.list[i] as Instance;
      if (c.name === name) return lacks(c) ? c : undefined;
    }
    return undefined;
  }

  add(name: string, fields: Partial<Instance>): Instance {
    const c: Instance = {
      name,
      init: false,
      attempt: null,
      containerID: null,
      createdAt: null,
      startedAt: null,
      finishedAt: null,
      exitCode: null,
      reason: null,
      error: null,
      ...fields,
    };
    this.list.push(c);
    return c;
  }

  /** Finds (or creates) the instance a container ID belongs to, binding the ID to an unbound instance. */
  forID(id: string, name: string | null | undefined, time: number, ran = false): Instance | undefined {
    const known = this.byID(id);
    if (known) return known;
    const unbound = this.newest(
      name,
      (c) => c.containerID === null && c.finishedAt === null && (!ran || c.startedAt !== null),
    );
    if (unbound) {
      unbound.containerID = id;
      return unbound;
    }
    return name ? this.add(name, { containerID: id, startedAt: time }) : undefined;
  }

  applyStatus(cs: ContainerStatus, init: boolean, time: number): void {
    for (const c of this.list) if (c.name === cs.name) c.init = init;
    const facts = [cs.lastState?.terminated, cs.state?.terminated];
    for (const t of facts) {
      const id = bareContainerID(t?.containerID ?? (t === cs.state?.terminated ? cs.containerID : undefined));
      if (!t || !id) continue;
      // Only an instance that was started can be the one that terminated.
      const c = this.forID(id, cs.name, parseRFC3339(t.startedAt) ?? time, true);
      if (!c) continue;
      c.exitCode = t.exitCode;
      c.reason = t.reason ?? null;
      c.finishedAt ??= parseRFC3339(t.finishedAt) ?? time;
      c.init = init;
    }
    const id = bareContainerID(cs.containerID);
    if (cs.state?.running && id) {
      const c = this.forID(id, cs.name, parseRFC3339(cs.state.running.startedAt) ?? time);
      if (c) {
        c.startedAt ??= parseRFC3339(cs.state.running.startedAt) ?? time;
        c.init = init;
      }
    }
  }
}

function applyRuntimeCall(table: InstanceTable, ev: Extract<TraceEvent, { type: 'runtime.call' }>): void {
  const failed = Boolean(ev.error) || (ev.code !== undefined && ev.code !== 0);
  if (ev.method === 'CreateContainer' && ev.container) {
    table.add(ev.container, {
      attempt: ev.attempt ?? null,
      createdAt: ev.time,
      ...(failed ? { error: ev.error ?? `code ${ev.code}`, finishedAt: ev.time } : {}),
    });
  } else if (ev.method === 'StartContainer' && ev.container) {
    const c =
      table.byID(bareContainerID(ev.container)) ?? table.newest(ev.container, (x) => x.startedAt === null);
    if (!c) return;
    if (failed) {
      c.error = ev.error ?? `code ${ev.code}`;
      c.finishedAt ??= ev.time;
    } else {
      c.startedAt ??= ev.time;
    }
  }
}

function segmentsOf(c: Instance, next: Instance | undefined, end: number): LaneSegment[] {
  const out: LaneSegment[] = [];
  const runEnd = c.finishedAt ?? end;
  const running = c.finishedAt === null;
  if (c.createdAt !== null) {
    const open = c.startedAt === null && running;
    out.push({ kind: 'created', start: c.createdAt, end: c.startedAt ?? runEnd, ...(open ? { open } : {}) });
  }
  if (c.startedAt !== null)
    out.push({ kind: 'running', start: c.startedAt, end: runEnd, ...(running ? { open: true } : {}) });
  if (c.finishedAt !== null) {
    const nextStart = next ? (next.createdAt ?? next.startedAt ?? null) : null;
    const open = nextStart === null;
    out.push({
      kind: 'exited',
      start: c.finishedAt,
      end: Math.max(c.finishedAt, nextStart ?? end),
      ...(open ? { open } : {}),
    });
  }
  return out;
}

/**
 * The layout with its right edge moved to `now` (when later than its end): open worker bands and open
 * lane segments follow; every other array is the same object, so the point marks need no new layout.
 * The same layout object when `now` is not past its end. Lets a view lay out once per change of the
 * events and move only the live edge on each clock tick.
 */
export function extendToNow(layout: TimelineLayout, now: number): TimelineLayout {
  if (now <= layout.end || layout.finished) return layout;
  const stretch = <T extends { end: number; open?: boolean }>(x: T): T =>
    x.open ? { ...x, end: Math.max(x.end, now) } : x;
  return {
    ...layout,
    end: now,
    workerBands: layout.workerBands.map(stretch),
    lanes: layout.lanes.map((l) =>
      l.segments.some((g) => g.open) ? { ...l, segments: l.segments.map(stretch) } : l,
    ),
  };
}

/**
 * Lays out one pod's events (any order; sorted here by seq). `now` is the engine's current time: open
 * bands and running containers extend to max(now, last event).
 */
export function layoutPodTimeline(events: readonly TraceEvent[], now: number): TimelineLayout {
  // server.start markers are node-wide: keep those inside the pod's own history, and lay out the rest
  const sorted = events.filter((e) => e.type !== 'server.start').sort((a, b) => a.seq - b.seq);
  const from = sorted[0]?.time ?? Number.POSITIVE_INFINITY;
  const restarts = events
    .filter((e) => e.type === 'server.start' && e.time >= from)
    .map((e) => ({ seq: e.seq, time: e.time }))
    .sort((a, b) => a.seq - b.seq);
  const table = new InstanceTable();
  const workerBands: WorkerBand[] = [];
  const pleg: PlegMark[] = [];
  const syncs: SyncMark[] = [];
  const backoffs: BackoffWindow[] = [];
  const probes: ProbeMark[] = [];
  const marks: EventMark[] = [];
  const updates: UpdateMark[] = [];
  // one back-off window per entry and exit: every sync inside the window records it again
  const windows = new Map<string, BackoffWindow>();
  let open: WorkerBand | null = null;
  let finished = false;

  for (const ev of sorted) {
    switch (ev.type) {
      case 'worker.state':
        if (open) {
          open.end = ev.time;
          open.open = false;
        }
        open =
          ev.to === 'Forgotten'
            ? null
            : { state: ev.to, start: ev.time, end: ev.time, open: true, seq: ev.seq };
        if (open) workerBands.push(open);
        finished = ev.to === 'Finished' || ev.to === 'Forgotten';
        break;
      case 'config.update':
        updates.push({ seq: ev.seq, time: ev.time, kind: 'config', label: `config ${ev.op} (${ev.source})` });
        break;
      case 'worker.update':
        updates.push({
          seq: ev.seq,
          time: ev.time,
          kind: 'update',
          label: `worker update ${ev.updateType}${ev.coalesced ? ' (coalesced)' : ''}${ev.dropped ? `, dropped: ${ev.dropped}` : ''}`,
        });
        break;
      case 'runtime.call':
        applyRuntimeCall(table, ev);
        break;
      case 'pleg.event': {
        const id = bareContainerID(ev.containerID);
        pleg.push({
          seq: ev.seq,
          time: ev.time,
          event: ev.event,
          containerID: ev.containerID,
          containerName: ev.containerName ?? null,
          ...(ev.inferred ? { inferred: true as const } : {}),
        });
        if (!id) break;
        if (ev.event === 'ContainerStarted') {
          const c = table.forID(id, ev.containerName, ev.time);
          if (c) c.startedAt ??= ev.time;
        } else if (ev.event === 'ContainerDied') {
          const c = table.forID(id, ev.containerName, ev.time);
          if (c) {
            c.finishedAt ??= ev.time;
            if (ev.exitCode !== undefined) c.exitCode ??= ev.exitCode;
          }
        }
        break;
      }
      case 'status.update':
        for (const cs of ev.status.initContainerStatuses ?? []) table.applyStatus(cs, true, ev.time);
        for (const cs of ev.status.containerStatuses ?? []) table.applyStatus(cs, false, ev.time);
        break;
      case 'sync.result': {
        const failed = Boolean(ev.error) || ev.actions.some((a) => a.error);
        syncs.push({
          seq: ev.seq,
          start: ev.time - ev.durationMs,
          end: ev.time,
          workType: ev.workType,
          actions: ev.actions,
          error: ev.error ?? null,
          failed,
          durationStated: statedDurationMs(ev) !== null,
        });
        break;
      }
      case 'backoff': {
        const id = `${ev.kind}/${ev.key}@${ev.until - ev.delayS * 1000}`;
        if (windows.has(id)) break;
        const w: BackoffWindow = {
          seq: ev.seq,
          kind: ev.kind,
          container: ev.container,
          delayS: ev.delayS,
          start: ev.time,
          end: ev.until,
        };
        windows.set(id, w);
        backoffs.push(w);
        break;
      }
      case 'probe.result':
        probes.push({
          seq: ev.seq,
          time: ev.time,
          container: ev.container,
          probe: ev.probe,
          result: ev.result,
          output: ev.output ?? null,
        });
        break;
      case 'k8s.event':
        marks.push({
          seq: ev.seq,
          time: ev.time,
          eventType: ev.eventType,
          reason: ev.reason,
          message: ev.message,
        });
        break;
      default:
        break;
    }
  }

  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const end = Math.max(now, last?.time ?? now);
  const start = Math.min(first?.time ?? end - 60_000, ...syncs.map((s) => s.start));
  for (const b of workerBands) if (b.open) b.end = end;

  const firstTime = (c: Instance) => c.createdAt ?? c.startedAt ?? c.finishedAt ?? end;
  const ordered = [...table.list].sort((a, b) => firstTime(a) - firstTime(b));
  const lanes = ordered.map((c, i): ContainerLane => {
    const next = ordered.slice(i + 1).find((n) => n.name === c.name);
    return { ...c, key: `${c.name}#${i}`, segments: segmentsOf(c, next, end) };
  });

  return {
    start,
    end,
    finished,
    workerBands,
    lanes,
    pleg,
    syncs,
    backoffs,
    probes,
    events: marks,
    updates,
    faults: [],
    restarts,
  };
}
