/**
 * useTraceStream: keeps one WebSocket to /api/v1/trace/stream open for the app's lifetime and patches the
 * query cache with every batch (dispatchEvents). Mount it once, near the root.
 *
 *   connecting ──open──▶ live ──close / error / {kind:'resync'}──▶ reconnecting ──▶ open with ?since=
 *
 * The stream resumes after lastSeq, the highest seq applied to the recent trace, so nothing is replayed
 * into the cache (applyEvents would drop duplicates anyway) and nothing the server still holds is skipped.
 * Before a reconnect it asks the server for the oldest seq it holds: when events after lastSeq were
 * dropped (the reason for most resyncs), it resumes from what is held and refetches the REST state (pods,
 * open pod traces) instead of being told to resync again.
 */
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  type ConnectionState,
  parseStreamMessage,
  reconnectDelayMs,
  resumeSince,
  streamUrl,
} from '../lib/stream.ts';
import type { TraceState } from '../lib/trace-store.ts';
import { wsProtocols } from './auth.ts';
import { getTracePage } from './client.ts';
import { dispatchEvents, queryKeys } from './queries.ts';

async function resumePoint(queryClient: QueryClient, first: boolean): Promise<number> {
  const lastSeq = queryClient.getQueryData<TraceState>(queryKeys.recentTrace)?.lastSeq ?? 0;
  if (first || lastSeq <= 0) return Math.max(0, lastSeq);
  const page = await getTracePage({ since: 0, limit: 1 });
  const { since, gap } = resumeSince(lastSeq, page.oldest);
  if (gap) {
    void queryClient.invalidateQueries({ queryKey: queryKeys.pods });
    void queryClient.invalidateQueries({ queryKey: ['trace', 'pod'] });
  }
  return since;
}

export function useTraceStream(): ConnectionState {
  const queryClient = useQueryClient();
  const [state, setState] = useState<ConnectionState>('connecting');

  useEffect(() => {
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let disposed = false;
    let first = true;

    const retry = (delay: number) => {
      if (disposed) return;
      setState('reconnecting');
      timer = setTimeout(() => void connect(), delay);
    };

    const connect = async () => {
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
      const ws = new WebSocket(streamUrl(window.location, since), wsProtocols());
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        setState('live');
      };
      ws.onmessage = (m: MessageEvent) => {
        if (typeof m.data !== 'string') return;
        const msg = parseStreamMessage(m.data);
        if (msg.kind === 'events') {
          if (msg.rejected.length) console.warn('trace stream: rejected events', msg.rejected);
          dispatchEvents(queryClient, msg.events);
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
      clearTimeout(timer);
      socket?.close();
    };
  }, [queryClient]);

  return state;
}
