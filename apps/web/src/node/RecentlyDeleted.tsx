/**
 * Pods that left the node (their config.update REMOVE in the recent trace), newest first, each a link to
 * its page, where its history stays browsable. A pod drops off this list when the trace held here forgets
 * its removal (the recent trace is bounded), which is also when its timeline would stop being complete.
 * A UID the pods list still holds is left out: it is on the node (an observer can see a removal the observed
 * kubelet then undoes), so it is in the table, not here.
 */

import type { PodList } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { useCallback, useMemo } from 'react';
import { usePods, useRecentTrace } from '../api/queries.ts';
import { routeHref } from '../lib/route.ts';
import { clockText } from './liveness.ts';

/** How many the panel lists; the heading counts them all. */
const SHOWN = 20;

export interface DeletedPod {
  uid: string;
  namespace: string;
  name: string;
  /** engine time of the removal */
  time: number;
}

/** The pods removed in `events` (ascending seq), newest first, one entry per UID. */
export function deletedPods(events: readonly TraceEvent[]): DeletedPod[] {
  const out: DeletedPod[] = [];
  const seen = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i] as TraceEvent;
    if (ev.type !== 'config.update' || ev.op !== 'REMOVE' || seen.has(ev.podUID)) continue;
    seen.add(ev.podUID);
    const slash = ev.pod.indexOf('/');
    out.push({
      uid: ev.podUID,
      namespace: slash < 0 ? 'default' : ev.pod.slice(0, slash),
      name: slash < 0 ? ev.pod : ev.pod.slice(slash + 1),
      time: ev.time,
    });
  }
  return out;
}

/** `removed` less the UIDs in `listed` (newline-separated): those are still on the node. */
export function notListed(removed: readonly DeletedPod[], listed: string): DeletedPod[] {
  const present = new Set(listed.split('\n'));
  return removed.filter((p) => !present.has(p.uid));
}

export function RecentlyDeleted() {
  const trace = useRecentTrace();
  const events = trace.data?.events;
  const removed = useMemo(() => deletedPods(events ?? []), [events]);
  // which of the removed UIDs the list still holds, as a string: re-renders only when that changes
  const stillListed = useCallback(
    (list: PodList) => {
      if (removed.length === 0) return '';
      const uids = new Set(removed.map((p) => p.uid));
      return list.items
        .flatMap((p) => (p.metadata.uid && uids.has(p.metadata.uid) ? [p.metadata.uid] : []))
        .join('\n');
    },
    [removed],
  );
  const listed = usePods(stillListed).data ?? '';
  const gone = useMemo(() => notListed(removed, listed), [removed, listed]);
  return (
    <section className="panel" data-testid="recently-deleted" aria-labelledby="deleted-title">
      <h2 id="deleted-title">
        Recently deleted <span className="count">{gone.length}</span>
      </h2>
      {gone.length === 0 ? (
        <p className="sub" data-testid="deleted-empty">
          No pod removed from the node in the trace held here.
        </p>
      ) : (
        <ul className="deleted-list">
          {gone.slice(0, SHOWN).map((p) => (
            <li key={p.uid} data-testid={`deleted-${p.name}`}>
              <a className="mono" href={routeHref({ view: 'pod', namespace: p.namespace, name: p.name })}>
                {p.namespace}/{p.name}
              </a>{' '}
              <span className="sub">removed at {clockText(p.time)}</span>
            </li>
          ))}
          {gone.length > SHOWN && <li className="sub">…and {gone.length - SHOWN} more</li>}
        </ul>
      )}
    </section>
  );
}
