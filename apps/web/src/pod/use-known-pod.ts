/**
 * The pod a pod page is about: from the API (that pod alone) while it is on the node, else the last one
 * seen here, else only its UID as the trace knows it (a deleted pod's history stays browsable). Until the
 * pod arrives the server's row of it stands in: the header paints from it, and its UID opens the pod's
 * trace without waiting for the pod.
 */
import type { Pod, PodList } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { useCallback, useRef } from 'react';
import { usePodListed, usePodRow } from '../api/pod-queries.ts';
import { useRecentTrace } from '../api/queries.ts';
import type { PodRowSummary } from '../lib/pod-state-core.ts';
import type { TraceState } from '../lib/trace-store.ts';
import { useReplay } from '../replay/context.ts';

export interface KnownPod {
  pod: Pod | undefined;
  /** The server's row of the pod while the pod itself has not arrived (none once it has). */
  row: PodRowSummary | undefined;
  uid: string | undefined;
  /** The pod is no longer in the list (deleted and removed), or was never seen there. */
  gone: boolean;
  loading: boolean;
}

/** The UID of the newest event the trace holds for `namespace/name`. */
function uidInTrace(events: readonly TraceEvent[], ref: string): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i];
    if (ev && 'pod' in ev && ev.pod === ref && ev.podUID) return ev.podUID;
  }
  return undefined;
}

/**
 * Subscribes through `select`: the page re-renders when this pod (or its UID in the trace) changes, not
 * on every batch the stream applies to the pods list or the recent trace.
 */
export function useKnownPod(namespace: string, name: string): KnownPod {
  const selectPod = useCallback(
    (list: PodList) =>
      list.items.find((p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace),
    [namespace, name],
  );
  const pods = usePodListed(namespace, name, selectPod);
  const podRow = usePodRow(namespace, name);
  const last = useRef<Pod | undefined>(undefined);
  const live = pods.data;
  if (live) last.current = live;
  // the row is the pod's only while the pod has not answered (a row of the same name could be a newer pod's)
  const row = pods.isPending ? (podRow.data ?? undefined) : undefined;
  const known = live?.metadata.uid ?? last.current?.metadata.uid ?? row?.uid;
  // the trace is searched only while the pod is not known from the list
  const selectUid = useCallback(
    (trace: TraceState) => (known ? undefined : uidInTrace(trace.events, `${namespace}/${name}`)),
    [known, namespace, name],
  );
  const recent = useRecentTrace(selectUid);
  // a replay's REMOVEd pod, as its events left it: its page keeps its name and last state
  const replay = useReplay();
  const removed =
    live || last.current || !replay
      ? undefined
      : [...replay.removed]
          .reverse()
          .find((p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace);
  const uid = known ?? removed?.metadata.uid ?? recent.data;
  return {
    pod: live ?? last.current ?? removed,
    row,
    uid,
    gone: pods.isSuccess && !live,
    loading: pods.isPending,
  };
}
