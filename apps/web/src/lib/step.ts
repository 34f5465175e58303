/**
 * The step-through: the pod as it was at one event of its trace. `stepState(events, index)` replays the
 * pod's events (ascending seq, as a pod TraceState keeps them) up to and including `events[index]` and
 * returns what the UI shows at that step: the latest reported status, the pod worker's state, a pending
 * update not yet picked up by a sync, the sync in progress, and for a `sync.result` the decision in words.
 * Pure and O(index); the caller memoises per index.
 */
import type { PodStatus } from '@syncscope/core/api';
import type { TraceEvent, TraceOf, UpdateType, WorkerState, WorkType } from '@syncscope/core/trace';
import { type ClockFormat, explainSync, localClock, type SyncExplanation } from './explain.ts';

export interface StepState {
  index: number;
  total: number;
  event: TraceEvent;
  /** The latest status.update at or before the step, and when it was reported. */
  status: PodStatus | null;
  statusTime: number | null;
  /** The pod worker's state (null before the first worker.state) and since when. */
  worker: WorkerState | null;
  workerSince: number | null;
  /** An update delivered to the worker after its last sync started: it runs next. */
  pending: { updateType: UpdateType; coalesced: boolean; time: number } | null;
  /** A sync that has started and not reported its result yet. */
  syncing: { workType: WorkType; updateType: UpdateType; since: number } | null;
  /** For a sync.result step: what computePodActions decided and how it went. */
  decision: SyncExplanation | null;
  /** Back-off windows still open at the step's time, newest per container. */
  backoffs: TraceOf<'backoff'>[];
}

/** The index of the step for a seq: the last event with seq ≤ `seq` (0 when all are later, -1 when empty). */
export function indexOfSeq(events: readonly TraceEvent[], seq: number): number {
  if (events.length === 0) return -1;
  let lo = 0;
  let hi = events.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((events[mid] as TraceEvent).seq <= seq) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The pod at `events[index]` (index is clamped into range); null for an empty trace. */
export function stepState(
  events: readonly TraceEvent[],
  index: number,
  fmt: ClockFormat = localClock,
): StepState | null {
  if (events.length === 0) return null;
  const at = Math.max(0, Math.min(events.length - 1, Math.trunc(index)));
  const s: StepState = {
    index: at,
    total: events.length,
    event: events[at] as TraceEvent,
    status: null,
    statusTime: null,
    worker: null,
    workerSince: null,
    pending: null,
    syncing: null,
    decision: null,
    backoffs: [],
  };
  const open = new Map<string, TraceOf<'backoff'>>();
  let syncBackoffs: TraceOf<'backoff'>[] = [];
  for (let i = 0; i <= at; i++) {
    const ev = events[i] as TraceEvent;
    switch (ev.type) {
      case 'status.update':
        s.status = ev.status;
        s.statusTime = ev.time;
        break;
      case 'worker.state':
        s.worker = ev.to;
        s.workerSince = ev.time;
        if (ev.to !== 'SyncPod' && ev.to !== 'TerminatingPod') s.pending = null;
        break;
      case 'worker.update':
        s.pending = { updateType: ev.updateType, coalesced: ev.coalesced, time: ev.time };
        break;
      case 'sync.start':
        s.syncing = { workType: ev.workType, updateType: ev.updateType, since: ev.time };
        s.pending = null;
        syncBackoffs = [];
        break;
      case 'backoff':
        open.set(`${ev.kind}/${ev.container}`, ev);
        syncBackoffs.push(ev);
        break;
      case 'sync.result':
        s.syncing = null;
        if (i === at) s.decision = explainSync(ev, syncBackoffs, fmt);
        syncBackoffs = [];
        break;
      default:
        break;
    }
  }
  s.backoffs = [...open.values()].filter((b) => b.until > s.event.time);
  return s;
}
