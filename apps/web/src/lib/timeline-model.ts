/**
 * The data of one pod's timeline (lib/timeline-layout.ts lays it out): times are ms on the engine's clock,
 * and the Timeline component only maps them to pixels. Rows from the top: the pod worker's state band,
 * worker updates, SyncPod runs, PLEG events, back-off windows, probe results, Events, then one lane per
 * container instance; the node's faults and the server's restarts are drawn across every row.
 */
import type {
  PlegEventType,
  ProbeResult,
  ProbeType,
  SyncAction,
  WorkerState,
  WorkType,
} from '@syncscope/core/trace';

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

export interface PlegMark {
  seq: number;
  time: number;
  event: PlegEventType;
  containerID: string;
  containerName: string | null;
  /** a kubelet log implies it without a line for it (the importer's rule): drawn hollow, dashed */
  inferred?: true;
}

export interface SyncMark {
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

export interface BackoffWindow {
  seq: number;
  kind: 'container' | 'image';
  container: string;
  delayS: number;
  start: number;
  end: number;
}

export interface ProbeMark {
  seq: number;
  time: number;
  container: string;
  probe: ProbeType;
  result: ProbeResult;
  output: string | null;
}

export interface EventMark {
  seq: number;
  time: number;
  eventType: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** A worker update (or the config op before it) on the "updates" row. */
export interface UpdateMark {
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
