/**
 * useTraceStream: while a view needs the trace (a pod's page), keeps one WebSocket to /api/v1/trace/stream
 * open and patches the query cache with every batch (dispatchEvents). Given a pod's UID it asks for that
 * pod's events only (?podUID=, with the node-wide ones every pod's timeline shows), so the page's work
 * follows that pod, not the node's event rate; without one, every event (a page still looking for its
 * pod's UID in the recent trace). Its state is reported to stream-status.ts, the page's connection state.
 *
 *   connecting ──open──▶ live ──close / error / {kind:'resync'}──▶ reconnecting ──▶ open with ?since=
 *
 * The first connection starts at the newest `limit` events the server holds (what the recent trace keeps);
 * a reconnect resumes after lastSeq, the highest seq applied to the recent trace, so nothing is replayed
 * into the cache (applyEvents would drop duplicates anyway) and nothing the server still holds is skipped.
 * Before a reconnect it asks the server for the oldest seq it holds: when events after lastSeq were
 * dropped (the reason for most resyncs), it resumes from what is held and refetches the REST state (pods,
 * open pod traces) instead of being told to resync again.
 *
 * Batches are parsed as they arrive but applied to the cache at most once per animation frame (or after
 * FLUSH_FALLBACK_MS when frames are not running, as in a background tab): a backlog of hundreds of
 * messages re-renders the page once per frame, not once per message. Whatever is pending is applied
 * before a reconnect computes its resume point.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { reconnectDelayMs, resumeSince, streamUrl } from '../lib/stream.ts';
import { parseStreamMessage } from '../lib/stream-message.ts';
import { DEFAULT_TRACE_LIMIT, type TraceState } from '../lib/trace-store.ts';
import { wsProtocols } from './auth.ts';
import { getTraceBounds, getTracePage } from './client.ts';
import { dispatchEvents, queryKeys } from './queries.ts';
import { trackStream } from './stream-status.ts';

async function resumePoint(queryClient: QueryClient, first: boolean): Promise<number> {
  const recent = queryClient.getQueryData<TraceState>(queryKeys.recentTrace);
  const lastSeq = recent?.lastSeq ?? 0;
  if (first || lastSeq <= 0) {
    // The recent trace keeps only its last `limit` events: a backlog older than that would be parsed and
    // dropped (pods and pod histories come over REST), so the first connection starts there.
    const limit = recent?.limit ?? DEFAULT_TRACE_LIMIT;
    // (never below what the server still holds: it would answer with a resync)
    const start = await getTraceBounds().then(
      (b) => Math.max(b.newest - limit, (b.oldest ?? 1) - 1),
      () => 0,
    );
    return Math.max(0, lastSeq, start);
  }
  const page = await getTracePage({ since: 0, limit: 1 });
  const { since, gap } = resumeSince(lastSeq, page.oldest);
  if (gap) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.pods });
    void queryClient.invalidateQueries({ queryKey: ['trace', 'pod'] });
  }
  return since;
}

/** Longest wait for a frame before pending events are applied anyway (hidden tabs get no frames). */
const FLUSH_FALLBACK_MS = 250;

/** Collects events and hands them to `apply` once per animation frame. */
function frameBatcher(apply: (events: TraceEvent[]) => void) {
  let pending: TraceEvent[] = [];
  let frame: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (frame !== undefined) cancelAnimationFrame(frame);
    clearTimeout(timer);
    frame = undefined;
    timer = undefined;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    apply(batch);
  };
  return {
    add(events: readonly TraceEvent[]) {
      for (const ev of events) pending.push(ev);
      if (frame !== undefined || timer !== undefined) return;
      frame = requestAnimationFrame(flush);
      timer = setTimeout(flush, FLUSH_FALLBACK_MS);
    },
    flush,
    cancel() {
      if (frame !== undefined) cancelAnimationFrame(frame);
      clearTimeout(timer);
      frame = undefined;
      timer = undefined;
      pending = [];
    },
  };
}

/** Keeps the trace live while `enabled`: `podUID`'s events only when given, else every event. */
export function useTraceStream(enabled: boolean, podUID?: string): void {
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!enabled) return;
    const status = trackStream('the trace stream');
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let disposed = false;
    let first = true;
    const batcher = frameBatcher((events) => dispatchEvents(queryClient, events));

    const retry = (delay: number) => {
      if (disposed) return;
      status.lost();
      timer = setTimeout(() => void connect(), delay);
    };

    const connect = async () => {
      batcher.flush();
      let since: number;
      try {
        since = await resumePoint(queryClient, first);
      } catch {
        retry(reconnectDelayMs(attempt++));
        return;
      }
      if (disposed) return;
      first = false;
      let resync = false;
      const ws = new WebSocket(streamUrl(window.location, since, podUID), wsProtocols());
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        status.live();
      };
      ws.onmessage = (m: MessageEvent) => {
        if (typeof m.data !== 'string') return;
        const msg = parseStreamMessage(m.data);
        if (msg.kind === 'events') {
          if (msg.rejected.length) console.warn('trace stream: rejected events', msg.rejected);
          batcher.add(msg.events);
        } else if (msg.kind === 'resync') {
          resync = true;
          ws.close();
        } else {
          console.warn('trace stream:', msg.error);
        }
      };
      ws.onclose = () => {
        if (socket !== ws) return;
        socket = null;
        retry(resync ? 0 : reconnectDelayMs(attempt++));
      };
    };

    void connect();
    return () => {
      disposed = true;
      status.end();
      batcher.cancel();
      clearTimeout(timer);
      socket?.close();
    };
  }, [queryClient, enabled, podUID]);
}
