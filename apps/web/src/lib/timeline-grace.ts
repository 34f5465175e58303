/**
 * A deleted pod's grace deadline as its DELETE states it. The API server sets a pod's deletionTimestamp to
 * the time of the DELETE plus the grace period (the time after which the object is removed), so the
 * deadline is the deletionTimestamp itself and the DELETE was asked `gracePeriodS` before it. Only a
 * config.update that carries both (an observer's DELETE from the API) gives one. Pure.
 */
import { parseRFC3339 } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';

export interface DeleteGrace {
  seq: number;
  /** when the DELETE was seen */
  time: number;
  gracePeriodS: number;
  /** the deletionTimestamp (ms) */
  deadline: number;
}

/** The first DELETE with a deletionTimestamp and grace among `events`; null when there is none. */
export function deleteGrace(events: readonly TraceEvent[]): DeleteGrace | null {
  for (const ev of events) {
    if (ev.type !== 'config.update' || ev.op !== 'DELETE') continue;
    if (ev.deletionTimestamp === undefined || ev.gracePeriodS === undefined) continue;
    const deadline = parseRFC3339(ev.deletionTimestamp);
    if (deadline === null) continue;
    return { seq: ev.seq, time: ev.time, gracePeriodS: ev.gracePeriodS, deadline };
  }
  return null;
}
