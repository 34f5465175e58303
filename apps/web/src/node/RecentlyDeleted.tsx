/**
 * Pods that left the node, newest first, each a link to its page (where its history stays browsable), with
 * when and how: deleted (a graceful DELETE, with its grace period, then the REMOVE) or removed outright.
 * Read from the node's aggregates (the server keeps the newest removals; a replay folds its own), never
 * from the trace. A UID the pods table still holds is left out: it is on the node (an observer can see a
 * removal the observed kubelet then undoes), so it is in the table, not here.
 */
import { useCallback, useMemo } from 'react';
import { useNodeAggregates, useNodeRows } from '../api/queries.ts';
import type { NodeAggregatesState } from '../lib/node-aggregates-cache.ts';
import type { NodeRowsState } from '../lib/node-rows-cache.ts';
import type { DeletedPod } from '../lib/pod-state-core.ts';
import { routeHref } from '../lib/route.ts';
import { clockText } from './liveness.ts';

/** How many the panel lists; the heading counts them all. */
const SHOWN = 20;

const selectDeleted = (a: NodeAggregatesState) => a.deleted;
const NONE: readonly DeletedPod[] = [];

/** `removed` less the UIDs in `listed` (newline-separated): those are still on the node. */
export function notListed(removed: readonly DeletedPod[], listed: string): DeletedPod[] {
  const present = new Set(listed.split('\n'));
  return removed.filter((p) => !present.has(p.uid));
}

/** How the pod left, in a few words. */
export function howText(p: DeletedPod): string {
  if (p.how === 'removed') return `removed by ${p.source}`;
  return p.graceS === undefined ? 'deleted' : `deleted (grace ${p.graceS}s)`;
}

export function RecentlyDeleted() {
  const removed = useNodeAggregates(selectDeleted).data ?? NONE;
  // which of the removed UIDs the table still holds, as a string: re-renders only when that changes
  const stillListed = useCallback(
    (rows: NodeRowsState) => removed.flatMap((p) => (rows.byUID.has(p.uid) ? [p.uid] : [])).join('\n'),
    [removed],
  );
  const listed = useNodeRows(stillListed).data ?? '';
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
              <span className="sub">
                {howText(p)} at {clockText(p.time)}
              </span>
            </li>
          ))}
          {gone.length > SHOWN && <li className="sub">…and {gone.length - SHOWN} more</li>}
        </ul>
      )}
    </section>
  );
}
