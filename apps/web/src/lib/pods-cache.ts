/**
 * Patching the cached pods list (GET /api/v1/pods) from trace events, so the table follows the engine
 * without polling. Pure: returns a new list (or the same one when the event does not touch it) and whether
 * the list can no longer be patched and must be fetched again (a pod we do not know yet, a deletion that
 * changed metadata).
 */
import type { Pod, PodList } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';

export interface PodsPatch {
  list: PodList;
  /** The event referred to a change the trace does not carry in full: refetch the list. */
  refetch: boolean;
}

function replacePod(list: PodList, index: number, pod: Pod): PodList {
  const items = list.items.slice();
  items[index] = pod;
  return { ...list, items };
}

/** Applies one event: status.update replaces the pod's status; config.update REMOVE drops the pod. */
export function applyEventToPods(list: PodList, ev: TraceEvent): PodsPatch {
  switch (ev.type) {
    case 'status.update': {
      const i = list.items.findIndex((p) => p.metadata.uid === ev.podUID);
      if (i < 0) return { list, refetch: true };
      const pod = list.items[i] as Pod;
      return { list: replacePod(list, i, { ...pod, status: ev.status }), refetch: false };
    }
    case 'config.update': {
      const i = list.items.findIndex((p) => p.metadata.uid === ev.podUID);
      if (ev.op === 'REMOVE') {
        if (i < 0) return { list, refetch: false };
        return { list: { ...list, items: list.items.filter((_, j) => j !== i) }, refetch: false };
      }
      // ADD of a pod we have not listed, DELETE (deletionTimestamp set), UPDATE: metadata or spec changed.
      return { list, refetch: i < 0 || ev.op === 'DELETE' || ev.op === 'UPDATE' };
    }
    default:
      return { list, refetch: false };
  }
}

/**
 * Applies a batch in order. Costs O(pods + batch): the list is indexed and copied once per batch (not
 * once per event), and a batch that touches no pod returns the same list.
 */
export function applyEventsToPods(list: PodList, events: readonly TraceEvent[]): PodsPatch {
  let refetch = false;
  let items: Pod[] | undefined;
  let index: Map<string, number> | undefined;
  for (const ev of events) {
    if (ev.type !== 'status.update' && ev.type !== 'config.update') continue;
    if (ev.type === 'config.update' && ev.op === 'REMOVE') {
      // rare: fall back to the one-event path, which re-indexes
      const current: PodList = items ? { ...list, items } : list;
      const r = applyEventToPods(current, ev);
      refetch ||= r.refetch;
      if (r.list !== current) {
        items = r.list.items.slice();
        index = undefined;
      }
      continue;
    }
    if (!index) {
      index = new Map();
      (items ?? list.items).forEach((p, i) => {
        if (p.metadata.uid) index?.set(p.metadata.uid, i);
      });
    }
    const i = index.get(ev.podUID);
    if (ev.type === 'config.update') {
      // ADD of a pod we have not listed, DELETE (deletionTimestamp set), UPDATE: metadata or spec changed.
      refetch ||= i === undefined || ev.op === 'DELETE' || ev.op === 'UPDATE';
      continue;
    }
    if (i === undefined) {
      refetch = true;
      continue;
    }
    items ??= list.items.slice();
    items[i] = { ...(items[i] as Pod), status: ev.status };
  }
  return { list: items ? { ...list, items } : list, refetch };
}
