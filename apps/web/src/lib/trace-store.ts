/**
 * The browser's copy of the trace: events in seq order, with an index per pod.
 *
 * A TraceState is an immutable value kept in the TanStack Query cache and replaced on every batch
 * (setQueryData needs a new reference to notify). `applyEvents` is the only way the live stream changes
 * it: it drops every event whose seq is not above `lastSeq`, so a replayed or duplicated batch (after a
 * reconnect with ?since=) changes nothing. `fromEvents` builds a state from any mix of pages (history
 * fetched over HTTP plus what the stream already delivered), sorting and de-duplicating by seq.
 *
 * Memory is bounded: at most `limit` events in `events` and in each pod's list; the oldest go first.
 *
 * Cost: successive states share one append-only log (all events, and one list per pod). Appending a
 * batch to the newest state pushes onto the log and costs O(batch); the log is compacted to the last
 * `limit` events once it holds twice that, so appends stay amortized O(1) per event and no per-batch
 * copy of the whole trace or of the per-pod index is made. A state is a window on the log (the events
 * with seq ≤ its lastSeq); `events` and a pod's list are copied out of it the first time they are read
 * and cached on the state. Appending to a state that is not the newest forks the log (a copy), so an
 * older state never changes.
 */
// types only from core's trace module: its values would build every event's schema on the first page load
import type { TraceEvent } from '@syncscope/core/trace';

export interface TraceState {
  /** Highest seq applied; -1 when empty. */
  readonly lastSeq: number;
  /** All events kept, ascending seq. */
  readonly events: readonly TraceEvent[];
  /** Pod-scoped events by podUID, ascending seq. */
  readonly byPod: Readonly<Record<string, readonly TraceEvent[]>>;
  readonly limit: number;
}

export const DEFAULT_TRACE_LIMIT = 20_000;

/** The shared, append-only storage behind a chain of states. Only the newest state appends to it. */
interface TraceLog {
  all: TraceEvent[];
  pods: Map<string, TraceEvent[]>;
}

/** The index of the first event with seq > `seq` (events ascending by seq). */
function upperBound(list: readonly TraceEvent[], seq: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as TraceEvent).seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return hi;
}

/** The last `limit` events of `list` with seq ≤ `seq`, as a fresh array. */
function windowOf(list: readonly TraceEvent[], seq: number, limit: number): TraceEvent[] {
  const hi =
    list.length > 0 && (list[list.length - 1] as TraceEvent).seq <= seq ? list.length : upperBound(list, seq);
  return list.slice(Math.max(0, hi - limit), hi);
}

class LogState implements TraceState {
  private eventsCache: readonly TraceEvent[] | undefined;
  private byPodCache: Record<string, readonly TraceEvent[]> | undefined;
  private readonly podCache = new Map<string, readonly TraceEvent[]>();

  constructor(
    readonly log: TraceLog,
    readonly lastSeq: number,
    readonly limit: number,
  ) {}

  get events(): readonly TraceEvent[] {
    this.eventsCache ??= windowOf(this.log.all, this.lastSeq, this.limit);
    return this.eventsCache;
  }

  pod(uid: string): readonly TraceEvent[] {
    let list = this.podCache.get(uid);
    if (!list) {
      const all = this.log.pods.get(uid);
      list = all ? windowOf(all, this.lastSeq, this.limit) : [];
      this.podCache.set(uid, list);
    }
    return list;
  }

  get byPod(): Readonly<Record<string, readonly TraceEvent[]>> {
    if (!this.byPodCache) {
      const out: Record<string, readonly TraceEvent[]> = {};
      for (const uid of this.log.pods.keys()) {
        const list = this.pod(uid);
        if (list.length > 0) out[uid] = list;
      }
      this.byPodCache = out;
    }
    return this.byPodCache;
  }

  /** True when no other state has appended to the log past this one. */
  isHead(): boolean {
    const last = this.log.all[this.log.all.length - 1];
    return (last?.seq ?? -1) <= this.lastSeq;
  }
}

export function emptyTraceState(limit = DEFAULT_TRACE_LIMIT): TraceState {
  return new LogState({ all: [], pods: new Map() }, -1, limit);
}

/** A log holding exactly the window `state` shows: used to fork, and to compact a grown log. */
function copyLog(state: TraceState): TraceLog {
  const pods = new Map<string, TraceEvent[]>();
  const s = state instanceof LogState ? state : undefined;
  const uids = s ? s.log.pods.keys() : Object.keys(state.byPod)[Symbol.iterator]();
  for (const uid of uids) {
    const list = s ? s.pod(uid) : (state.byPod[uid] ?? []);
    if (list.length > 0) pods.set(uid, list.slice());
  }
  return { all: state.events.slice(), pods };
}

/**
 * Appends the events newer than `state.lastSeq` (in any order within the batch) and returns a new state,
 * or the same state object when nothing was new.
 */
export function applyEvents(state: TraceState, batch: readonly TraceEvent[]): TraceState {
  let fresh = batch.filter((ev) => ev.seq > state.lastSeq);
  if (fresh.length === 0) return state;
  // a batch from the stream is already ascending; sort only when it is not
  for (let i = 1; i < fresh.length; i++) {
    if ((fresh[i] as TraceEvent).seq <= (fresh[i - 1] as TraceEvent).seq) {
      fresh = fresh.sort((a, b) => a.seq - b.seq).filter((ev, j, a) => j === 0 || ev.seq !== a[j - 1]?.seq);
      break;
    }
  }

  const limit = state.limit;
  let log: TraceLog;
  if (!(state instanceof LogState) || !state.isHead()) log = copyLog(state);
  else if (state.log.all.length + fresh.length > 2 * limit) log = copyLog(state);
  else log = state.log;

  for (const ev of fresh) {
    log.all.push(ev);
    const uid = 'podUID' in ev ? ev.podUID : undefined;
    if (!uid) continue;
    const list = log.pods.get(uid);
    if (list) list.push(ev);
    else log.pods.set(uid, [ev]);
  }
  // A pod's list never outgrows the log, so compacting the log (every pod to its last `limit`) bounds both.
  const next = new LogState(log, (fresh[fresh.length - 1] as TraceEvent).seq, limit);
  return log.all.length > 2 * limit ? new LogState(copyLog(next), next.lastSeq, limit) : next;
}

/** A state holding exactly these events (sorted by seq, duplicates removed), bounded by `limit`. */
export function fromEvents(events: readonly TraceEvent[], limit = DEFAULT_TRACE_LIMIT): TraceState {
  return applyEvents(emptyTraceState(limit), events);
}

/** The events of one pod, ascending seq (empty when none are kept). */
export function podEvents(state: TraceState | undefined, podUID: string): readonly TraceEvent[] {
  if (!state) return [];
  if (state instanceof LogState) return state.pod(podUID);
  return state.byPod[podUID] ?? [];
}
