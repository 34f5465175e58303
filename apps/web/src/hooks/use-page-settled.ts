/**
 * usePageSettled: false until the page's first requests have answered (no query fetching for SETTLE_MS),
 * or SETTLE_MAX_MS after the first caller mounted, then true for the rest of the page's life (a later
 * caller, a replay's remounted views, gets true at once). What the first screen does not need (the log
 * opener's code, the side panels' own requests) waits for it: on a busy machine the page's core and the
 * server are shared, and whatever is fetched, parsed or answered before the first rows or the pod's header
 * delays them. One watcher of the query cache for the whole page, gone once settled: a settled caller
 * re-renders for nothing.
 */
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

/** How long no request may be in flight before the page counts as settled. */
const SETTLE_MS = 150;
/** The latest a page counts as settled, whatever is still in flight (a slow or polling request). */
const SETTLE_MAX_MS = 4_000;

let settled = false;
let watching = false;
const waiting = new Set<() => void>();

/** Watches `queryClient` until no query has fetched for SETTLE_MS (or SETTLE_MAX_MS have gone by). */
function watch(queryClient: QueryClient): void {
  watching = true;
  let quiet: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    clearTimeout(quiet);
    if (queryClient.isFetching() === 0) quiet = setTimeout(done, SETTLE_MS);
  };
  const off = queryClient.getQueryCache().subscribe(check);
  const latest = setTimeout(done, SETTLE_MAX_MS);
  function done() {
    off();
    clearTimeout(quiet);
    clearTimeout(latest);
    settled = true;
    for (const w of waiting) w();
    waiting.clear();
  }
  check();
}

export function usePageSettled(): boolean {
  const queryClient = useQueryClient();
  const [now, setNow] = useState(settled);
  useEffect(() => {
    if (now) return;
    if (settled) return setNow(true);
    const wake = () => setNow(true);
    waiting.add(wake);
    if (!watching) watch(queryClient);
    return () => {
      waiting.delete(wake);
    };
  }, [now, queryClient]);
  return now;
}
