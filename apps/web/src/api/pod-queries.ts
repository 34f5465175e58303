/**
 * What a pod's page reads of the pod itself, sized to one pod however many the node runs:
 *   ['pods', 'one', namespace, name]   PodList   GET /api/v1/namespaces/<ns>/pods/<name> as a list of that
 *                                                pod (no item on a 404), patched by the trace stream's
 *                                                status.update events (`patchPodLists`)
 *   ['pod-row', namespace, name]       PodRowSummary | null   GET /api/v1/node/rows?namespace=&name=: the
 *                                                server's row of the pod, the header's first paint and the
 *                                                pod's UID before the pod itself arrives
 * Both are sent before the first render when the page opens on a pod (`prefetchPodPage`), beside the
 * app's own code; the node page's rows and aggregates are not, so the pod's requests have the server to
 * themselves.
 *
 * In a replay the pod comes from the replay store at once and no row is asked for.
 */
import type { PodList } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { pageRows } from '../lib/node-rows-cache.ts';
import type { PodRowSummary } from '../lib/pod-state-core.ts';
import { applyEventsToPods } from '../lib/pods-cache.ts';
import { useReplay } from '../replay/context.ts';
import { getOnePod, getPodRow } from './client.ts';
import { takeFirstPodRow } from './first-requests.ts';

const podKeys = {
  /** the prefix of every one-pod list (under the pods list's key, so invalidating the pods reaches them) */
  lists: ['pods', 'one'] as const,
  list: (namespace: string, name: string) => ['pods', 'one', namespace, name] as const,
  row: (namespace: string, name: string) => ['pod-row', namespace, name] as const,
};

/** A pod fetched this recently (by the prefetch) is not fetched again when its page mounts. */
const FRESH_MS = 1_000;

/** How long the row stays cached with no page showing it. */
const ROW_KEPT_MS = 10_000;

const listQuery = (namespace: string, name: string) => ({
  queryKey: podKeys.list(namespace, name),
  queryFn: () => getOnePod(namespace, name),
  structuralSharing: false,
  staleTime: FRESH_MS,
});

const rowQuery = (namespace: string, name: string) => ({
  queryKey: podKeys.row(namespace, name),
  queryFn: async (): Promise<PodRowSummary | null> =>
    pageRows(await (takeFirstPodRow(namespace, name) ?? getPodRow(namespace, name))).rows[0] ?? null,
  structuralSharing: false,
  // the header's first paint only: the pod itself (kept live by the stream) takes over once it is in; kept
  // a while unobserved, so a row that answers before the page's first render is still there when it mounts
  staleTime: Number.POSITIVE_INFINITY,
  gcTime: ROW_KEPT_MS,
});

/**
 * Sends a pod page's first requests: the pod's row and the pod, and asks for the page's own code (its
 * chunk, which App would ask for only once it renders). Never blocks.
 */
export function prefetchPodPage(queryClient: QueryClient, namespace: string, name: string): void {
  void queryClient.prefetchQuery(rowQuery(namespace, name));
  void queryClient.prefetchQuery(listQuery(namespace, name));
  void import('../views/PodView.tsx').catch(() => undefined);
}

/** The pod `namespace/name` as a list of it alone (empty when the node has no such pod). */
export function usePodListed<T = PodList>(namespace: string, name: string, select?: (list: PodList) => T) {
  const replay = useReplay();
  return useQuery<PodList, Error, T>(
    replay
      ? {
          queryKey: ['replay', replay.id, ...podKeys.list(namespace, name)],
          queryFn: () => onlyPod(replay.pods, namespace, name),
          initialData: () => onlyPod(replay.pods, namespace, name),
          staleTime: Number.POSITIVE_INFINITY,
          structuralSharing: false,
          select,
        }
      : { ...listQuery(namespace, name), select },
  );
}

/** The server's row of the pod `namespace/name` (null when it has none); never asked for in a replay. */
export function usePodRow(namespace: string, name: string) {
  const replay = useReplay();
  return useQuery<PodRowSummary | null>({ ...rowQuery(namespace, name), enabled: !replay });
}

function onlyPod(list: PodList, namespace: string, name: string): PodList {
  return {
    ...list,
    items: list.items.filter(
      (p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace,
    ),
  };
}

/**
 * Applies a batch of the trace stream to the cached one-pod lists: each takes the events of its pod (by
 * UID, or by name before it is listed). O(batch × lists), and a page has one. A list that can no longer be
 * patched (its pod added, deleted or changed) is fetched again.
 */
export function patchPodLists(queryClient: QueryClient, events: readonly TraceEvent[]): void {
  for (const [key, list] of queryClient.getQueriesData<PodList>({ queryKey: podKeys.lists })) {
    if (!list) continue;
    const ref = `${String(key[2])}/${String(key[3])}`;
    const uid = list.items[0]?.metadata.uid;
    const mine = events.filter((ev) => 'pod' in ev && (ev.pod === ref || (uid && ev.podUID === uid)));
    if (mine.length === 0) continue;
    const r = applyEventsToPods(list, mine);
    if (r.list !== list) queryClient.setQueryData<PodList>(key, r.list);
    if (r.refetch) void queryClient.invalidateQueries({ queryKey: key, exact: true });
  }
}
