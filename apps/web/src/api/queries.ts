/**
 * The query cache layout and the hooks the views read it with. Keys:
 *   ['pods']              PodList            GET /api/v1/pods, patched by status.update events
 *   ['node-rows']         NodeRowsState      GET /api/v1/node/rows (the pods table), then the batches of
 *                                            /api/v1/node/rows/stream (use-node-rows-stream.ts)
 *   ['node-aggregates']   NodeAggregatesState GET /api/v1/node/aggregates (loop strip, cadence, deleted
 *                                            pods), then the batches of its stream
 *                                            (use-node-aggregates-stream.ts)
 *   ['node']              NodeInfo           GET /api/v1/node, polled
 *   ['trace', 'recent']   TraceState         what the trace stream delivered (bounded): open only on a pod's
 *                                            page, and there that pod's events and the node-wide ones
 *   ['trace', 'pod', uid] TraceState         one pod's full history: GET /api/v1/trace?podUID= merged with
 *                                            the stream; kept live by the stream while its page is open,
 *                                            dropped when it closes (a later visit fetches it again)
 * The trace stream (use-trace-stream.ts) is the only writer of the trace and pods entries after the first
 * fetch, through `dispatchEvents`; the rows stream the only writer of the rows, through `applyRowsBatch`.
 *
 * The trace and pods entries are replaced on every batch with values built by the patchers here, so they
 * are stored as given (structuralSharing off): a deep compare of 20k events per batch would cost more than
 * everything else the page does. `configureQueryClient` sets that for entries no hook has observed yet.
 *
 * Replay (replay/context.ts): while an imported trace is replayed, every hook reads the replay store
 * under its own keys (['replay', id, ...]) and never touches the network, so the views work unchanged.
 */
import type { PodList } from '@syncscope/core/api';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { type QueryClient, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  aggregatesOf,
  applyAggregates,
  type NodeAggregatesState,
  parseAggregates,
} from '../lib/node-aggregates-cache.ts';
import { type NodeRowsState, pageRows, replayRows, rowsState } from '../lib/node-rows-cache.ts';
import { applyEventsToPods } from '../lib/pods-cache.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { parseRoute } from '../lib/route.ts';
import { applyEvents, emptyTraceState, fromEvents, podEvents, type TraceState } from '../lib/trace-store.ts';
import { useReplay } from '../replay/context.ts';
import { getNode, getNodeAggregates, getNodeRows, getPods, getPodTrace } from './client.ts';
import { takeFirstNode, takeFirstRows } from './first-requests.ts';
import { patchPodLists, prefetchPodPage } from './pod-queries.ts';

export const queryKeys = {
  pods: ['pods'] as const,
  nodeRows: ['node-rows'] as const,
  nodeAggregates: ['node-aggregates'] as const,
  node: ['node'] as const,
  recentTrace: ['trace', 'recent'] as const,
  podTrace: (uid: string) => ['trace', 'pod', uid] as const,
};

/** Query options that serve a replay store's value at once and never refetch. */
const NO_SHARING = { structuralSharing: false } as const;

/** Query defaults the cache layout above relies on; call once on the app's QueryClient. */
export function configureQueryClient(queryClient: QueryClient): void {
  queryClient.setQueryDefaults(['trace'], NO_SHARING);
  queryClient.setQueryDefaults(queryKeys.pods, NO_SHARING);
  queryClient.setQueryDefaults(queryKeys.nodeRows, NO_SHARING);
  queryClient.setQueryDefaults(queryKeys.nodeAggregates, NO_SHARING);
}

function fromReplay<T>(replay: ReplayStore, key: readonly unknown[], value: () => T) {
  return {
    queryKey: ['replay', replay.id, ...key],
    queryFn: value,
    initialData: value,
    staleTime: Number.POSITIVE_INFINITY,
    ...NO_SHARING,
  };
}

/**
 * A list fetched this recently is not fetched again when a view mounts: the first page's requests start
 * before the app loads (`prefetchFirstPage`), and the table must not ask for the same 5,000 pods twice.
 */
const FRESH_ON_MOUNT_MS = 1_000;
const refetchOnMount = (query: { state: { dataUpdatedAt: number } }) =>
  Date.now() - query.state.dataUpdatedAt > FRESH_ON_MOUNT_MS;

/**
 * Sends the first page's requests: the node (taken from the boot module's early request,
 * first-requests.ts, when it sent one), and on the node page the table's rows and the loop's aggregates,
 * on a pod's page that pod's row and the pod (pod-queries.ts). The pods list is not among them: the rows
 * answer the first screen, and a view that needs whole pods fetches them when it mounts. Called once by
 * root.tsx before the first render; the hooks below find them in flight (or done). Never blocks; a
 * failure is cached as the query's error and fetched again by the hook that mounts.
 */
export function prefetchFirstPage(queryClient: QueryClient): void {
  const route = parseRoute(window.location.hash);
  if (route.view === 'pod') {
    // the node's 5,000 rows would hold up the one pod this page shows
    prefetchPodPage(queryClient, route.namespace, route.name);
    void queryClient.prefetchQuery({ queryKey: queryKeys.node, queryFn: () => takeFirstNode() ?? getNode() });
    return;
  }
  // the table's rows first: one small request for the first screen
  void queryClient.prefetchQuery({
    queryKey: queryKeys.nodeRows,
    queryFn: fetchNodeRows,
    ...NO_SHARING,
  });
  void queryClient.prefetchQuery({
    queryKey: queryKeys.nodeAggregates,
    queryFn: fetchNodeAggregates,
    ...NO_SHARING,
  });
  void queryClient.prefetchQuery({ queryKey: queryKeys.node, queryFn: () => takeFirstNode() ?? getNode() });
}

/**
 * The pods list; with `select`, the caller re-renders only when what it selects changes (by reference),
 * not on every batch the stream patches into the list. Not fetched while `enabled` is false (a panel that
 * needs whole pods only once the user turns to it).
 */
export function usePods<T = PodList>(select?: (list: PodList) => T, enabled = true) {
  const replay = useReplay();
  return useQuery<PodList, Error, T>(
    replay
      ? { ...fromReplay(replay, queryKeys.pods, () => replay.pods), select }
      : { queryKey: queryKeys.pods, queryFn: getPods, ...NO_SHARING, refetchOnMount, select, enabled },
  );
}

const fetchNodeRows = async (): Promise<NodeRowsState> =>
  rowsState(pageRows(await (takeFirstRows() ?? getNodeRows())));

/**
 * The pods table's rows (the server's, kept current by useNodeRowsStream; a replay's, from its reducer);
 * `select` as for usePods.
 */
export function useNodeRows<T = NodeRowsState>(select?: (rows: NodeRowsState) => T) {
  const replay = useReplay();
  return useQuery<NodeRowsState, Error, T>(
    replay
      ? { ...fromReplay(replay, queryKeys.nodeRows, () => replayRows(replay.pods.items)), select }
      : {
          queryKey: queryKeys.nodeRows,
          queryFn: fetchNodeRows,
          ...NO_SHARING,
          // the stream keeps the rows current: a mount or a focus does not fetch them again
          staleTime: Number.POSITIVE_INFINITY,
          select,
        },
  );
}

const fetchNodeAggregates = async (): Promise<NodeAggregatesState> => {
  const answer = parseAggregates(await getNodeAggregates());
  if (!answer) throw new Error('the node aggregates are not {cursor, windowStart, loop, …}');
  return applyAggregates(undefined, answer);
};

/**
 * The loop strip's, the cadence's and the deleted pods' data (the server's, kept current by
 * useNodeAggregatesStream; a replay's, folded from its trace); `select` as for usePods.
 */
export function useNodeAggregates<T = NodeAggregatesState>(select?: (a: NodeAggregatesState) => T) {
  const replay = useReplay();
  return useQuery<NodeAggregatesState, Error, T>(
    replay
      ? { ...fromReplay(replay, queryKeys.nodeAggregates, () => aggregatesOf(replay.trace.events)), select }
      : {
          queryKey: queryKeys.nodeAggregates,
          queryFn: fetchNodeAggregates,
          ...NO_SHARING,
          staleTime: Number.POSITIVE_INFINITY,
          select,
        },
  );
}

export function useNode() {
  const replay = useReplay();
  return useQuery<NodeInfo>(
    replay
      ? fromReplay(replay, queryKeys.node, () => replay.node)
      : { queryKey: queryKeys.node, queryFn: getNode, refetchInterval: 5_000, refetchOnMount },
  );
}

/** The recent trace (never fetched: only the stream fills it); `select` as for usePods. */
export function useRecentTrace<T = TraceState>(select?: (trace: TraceState) => T) {
  const replay = useReplay();
  return useQuery<TraceState, Error, T>(
    replay
      ? { ...fromReplay(replay, queryKeys.recentTrace, () => replay.trace), select }
      : {
          queryKey: queryKeys.recentTrace,
          queryFn: () => emptyTraceState(),
          staleTime: Number.POSITIVE_INFINITY,
          ...NO_SHARING,
          select,
        },
  );
}

/** One pod's history; the stream (opened by the pod's page, App.tsx) appends to it while it is shown. */
export function usePodTrace(podUID: string | undefined) {
  const queryClient = useQueryClient();
  const replay = useReplay();
  const uid = podUID ?? '';
  return useQuery<TraceState>(
    replay
      ? fromReplay(replay, queryKeys.podTrace(uid), () =>
          fromEvents(podEvents(replay.trace, uid), replay.trace.limit),
        )
      : {
          queryKey: queryKeys.podTrace(uid),
          enabled: Boolean(podUID),
          staleTime: Number.POSITIVE_INFINITY,
          // no stream keeps it current once its page is closed: a kept copy would miss what came since
          gcTime: 0,
          ...NO_SHARING,
          queryFn: async (): Promise<TraceState> => {
            const history = await getPodTrace(uid);
            // Whatever the stream delivered while the history was in flight is merged in, so nothing is
            // lost between the two.
            const recent = podEvents(queryClient.getQueryData<TraceState>(queryKeys.recentTrace), uid);
            return fromEvents([...history, ...recent]);
          },
        },
  );
}

/**
 * Applies a batch from the stream to every cache entry it concerns. Pod traces that are not cached are
 * left alone (their first fetch will include these events). Costs O(batch + cached pod traces): one
 * append to the recent trace, one pass over the batch for the pod traces that are cached, one patch of
 * the pods list.
 */
export function dispatchEvents(queryClient: QueryClient, events: readonly TraceEvent[]): void {
  if (events.length === 0) return;
  queryClient.setQueryData<TraceState>(queryKeys.recentTrace, (old) =>
    applyEvents(old ?? emptyTraceState(), events),
  );

  const cached = queryClient.getQueriesData<TraceState>({ queryKey: ['trace', 'pod'] });
  if (cached.length > 0) {
    const byPod = new Map<string, TraceEvent[]>();
    for (const [key, data] of cached) if (data) byPod.set(String(key[2]), []);
    for (const ev of events) {
      const uid = 'podUID' in ev ? ev.podUID : undefined;
      if (uid) byPod.get(uid)?.push(ev);
    }
    for (const [uid, evs] of byPod) {
      if (evs.length === 0) continue;
      queryClient.setQueryData<TraceState>(queryKeys.podTrace(uid), (old) =>
        old ? applyEvents(old, evs) : old,
      );
    }
  }

  patchPodLists(queryClient, events);
  let refetch = false;
  queryClient.setQueryData<PodList>(queryKeys.pods, (old) => {
    if (!old) return old;
    const r = applyEventsToPods(old, events);
    refetch = r.refetch;
    return r.list;
  });
  if (refetch) void queryClient.invalidateQueries({ queryKey: queryKeys.pods, exact: true });
}
