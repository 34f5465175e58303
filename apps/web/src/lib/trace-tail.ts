/**
 * The trace panel's tail: the newest events of the node, fetched when asked, and older pages on request,
 * never the live stream. The server's seqs are consecutive in what it holds, so a page is a range of seqs:
 * the newest `n` end at the newest seq, the page before a shown one ends just below its oldest seq, and
 * nothing is asked below the oldest seq the server still holds.
 *
 * Pure planners (tailPage, olderPage) and a merge that keeps at most MAX_TAIL events; the component
 * (node/TraceTail.tsx) does the fetching.
 */
import type { TraceEvent } from '@syncscope/core/trace';

/** Events per page. */
export const TAIL_PAGE = 50;
/** The most the panel holds: older pages stop being offered past it. */
export const MAX_TAIL = 500;

/** A request to GET /api/v1/trace: the events with seq > since, at most limit of them. */
export interface PageRequest {
  since: number;
  limit: number;
}

/** The newest `n` events, given the server's bounds; null when it holds none. */
export function tailPage(
  bounds: { oldest: number | null; newest: number },
  n = TAIL_PAGE,
): PageRequest | null {
  const floor = (bounds.oldest ?? 1) - 1;
  const since = Math.max(floor, bounds.newest - n);
  const limit = bounds.newest - since;
  return limit > 0 ? { since, limit } : null;
}

/** The page just older than `oldestShown`; null at the server's oldest or once MAX_TAIL are shown. */
export function olderPage(
  oldestShown: number,
  serverOldest: number | null,
  shown: number,
  n = TAIL_PAGE,
): PageRequest | null {
  if (shown >= MAX_TAIL) return null;
  const floor = (serverOldest ?? 1) - 1;
  const since = Math.max(floor, oldestShown - 1 - Math.min(n, MAX_TAIL - shown));
  const limit = oldestShown - 1 - since;
  return limit > 0 ? { since, limit } : null;
}

/** `shown` (newest first) with an older page (ascending, as the server sends it) after it. */
export function appendOlder(shown: readonly TraceEvent[], page: readonly TraceEvent[]): TraceEvent[] {
  const oldest = shown.length > 0 ? (shown[shown.length - 1] as TraceEvent).seq : Number.POSITIVE_INFINITY;
  const older = page.filter((ev) => ev.seq < oldest).reverse();
  return [...shown, ...older].slice(0, MAX_TAIL);
}
