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
 */
import { podUIDOf, type TraceEvent } from '@syncscope/core/trace';

export interface TraceState {
  /** Highest seq applied; -1 when empty. */
  lastSeq: number;
  /** All events kept, ascending seq. */
  events: readonly TraceEvent[];
  /** Pod-scoped events by podUID, ascending seq. */
  byPod: Readonly<Record<string, readonly TraceEvent[]>>;
  limit: number;
}

export const DEFAULT_TRACE_LIMIT = 20_000;

export function emptyTraceState(limit = DEFAULT_TRACE_LIMIT): TraceState {
  return { lastSeq: -1, events: [], byPod: {}, limit };
}

function keepLast<T>(list: readonly T[], limit: number): readonly T[] {
  return list.length > limit ? list.slice(list.length - limit) : list;
}

/**
 * Appends the events newer than `state.lastSeq` (in any order within the batch) and returns a new state,
 * or the same state object when nothing was new.
 */
export function applyEvents(state: TraceState, batch: readonly TraceEvent[]): TraceState {
  const fresh = batch.filter((ev) => ev.seq > state.lastSeq);
  if (fresh.length === 0) return state;
  fresh.sort((a, b) => a.seq - b.seq);
  const unique = fresh.filter((ev, i) => i === 0 || ev.seq !== fresh[i - 1]?.seq);

  const added: Record<string, TraceEvent[]> = {};
  for (const ev of unique) {
    const uid = podUIDOf(ev);
    if (!uid) continue;
    const list = added[uid];
    if (list) list.push(ev);
    else added[uid] = [ev];
  }
  const byPod: Record<string, readonly TraceEvent[]> = { ...state.byPod };
  for (const [uid, evs] of Object.entries(added)) {
    byPod[uid] = keepLast([...(byPod[uid] ?? []), ...evs], state.limit);
  }
  const last = unique[unique.length - 1] as TraceEvent;
  return {
    lastSeq: last.seq,
    events: keepLast([...state.events, ...unique], state.limit),
    byPod,
    limit: state.limit,
  };
}

/** A state holding exactly these events (sorted by seq, duplicates removed), bounded by `limit`. */
export function fromEvents(events: readonly TraceEvent[], limit = DEFAULT_TRACE_LIMIT): TraceState {
  return applyEvents(emptyTraceState(limit), events);
}

/** The events of one pod, ascending seq (empty when none are kept). */
export function podEvents(state: TraceState | undefined, podUID: string): readonly TraceEvent[] {
  return state?.byPod[podUID] ?? [];
}
