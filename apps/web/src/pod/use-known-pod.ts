/**
 * The pod a pod page is about: from the pods list while it is on the node, else the last one seen here,
 * else only its UID as the trace knows it (a deleted pod's history stays browsable).
 */
import type { Pod } from '@syncscope/core/api';
import { useRef } from 'react';
import { usePods, useRecentTrace } from '../api/queries.ts';

export interface KnownPod {
  pod: Pod | undefined;
  uid: string | undefined;
  /** The pod is no longer in the list (deleted and removed), or was never seen there. */
  gone: boolean;
  loading: boolean;
}

export function useKnownPod(namespace: string, name: string): KnownPod {
  const pods = usePods();
  const recent = useRecentTrace();
  const last = useRef<Pod | undefined>(undefined);
  const live = pods.data?.items.find(
    (p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace,
  );
  if (live) last.current = live;
  let uid = live?.metadata.uid ?? last.current?.metadata.uid;
  if (!uid) {
    const ref = `${namespace}/${name}`;
    const events = recent.data?.events ?? [];
    for (let i = events.length - 1; i >= 0; i--) {
      const ev = events[i];
      if (ev && 'pod' in ev && ev.pod === ref && ev.podUID) {
        uid = ev.podUID;
        break;
      }
    }
  }
  return { pod: live ?? last.current, uid, gone: pods.isSuccess && !live, loading: pods.isPending };
}
