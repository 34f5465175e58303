/**
 * The trace stream's query (trace-stream.ts): ?since=<seq> and ?podUID=<uid>, and the filter a pod's
 * stream sends through: that pod's events, and the node-wide ones every pod's timeline shows.
 */
import { isStatus, type Status } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { badParam, intParam } from '../status.ts';

/** A UID as the apiserver hands them out (a UUID) or as a test or an imported log names a pod. */
const POD_UID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export type EventFilter = (ev: TraceEvent) => boolean;

/** One pod's events and the node-wide events of every pod's timeline. */
export function podStreamFilter(podUID: string): EventFilter {
  return (ev) =>
    ev.type === 'server.start' || ev.type === 'sim.fault' || ('podUID' in ev && ev.podUID === podUID);
}

/** The stream's query: ?since= and ?podUID=, or the 400 Status naming the bad one. */
export function streamQuery(q: Record<string, unknown>): { since?: number; podUID?: string } | Status {
  const since = intParam('since', q.since);
  if (isStatus(since)) return since;
  if (q.podUID === undefined) return { since };
  const podUID = String(q.podUID);
  if (!POD_UID.test(podUID))
    return badParam('podUID', podUID, 'must be a pod UID: letters, digits, ".", "_" or "-", at most 128');
  return { since, podUID };
}
