/**
 * useNodeAggregatesStream: while the node page is shown, one WebSocket to /api/v1/node/aggregates/stream
 * keeps the cached aggregates (queries.ts, ['node-aggregates']) current, one setQueryData per batch. The
 * server sends at most a batch every 250 ms and none while nothing changes, so the loop strip, the cadence
 * and the deleted pods cost the page the same at 1 event a second or 1,000.
 *
 * It opens once the aggregates were fetched (their cursor is the first ?since=) and every reconnect resumes
 * after the newest cursor applied: the server answers with what changed meanwhile, or with everything when
 * it can no longer tell (a restarted server), which replaces the cache.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import {
  applyAggregates,
  type NodeAggregatesState,
  parseAggregatesMessage,
} from '../lib/node-aggregates-cache.ts';
import { reconnectDelayMs } from '../lib/stream.ts';
import { wsProtocols } from './auth.ts';
import { queryKeys } from './queries.ts';
import { trackStream } from './stream-status.ts';

function aggregatesStreamUrl(location: { protocol: string; host: string }, since: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = since ? `?since=${encodeURIComponent(since)}` : '';
  return `${scheme}//${location.host}/api/v1/node/aggregates/stream${query}`;
}

/** Keeps the aggregates live while `enabled` (they were fetched, and this is not a replay). */
export function useNodeAggregatesStream(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const status = trackStream('the node aggregates stream');
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let disposed = false;

    const connect = () => {
      const cursor = queryClient.getQueryData<NodeAggregatesState>(queryKeys.nodeAggregates)?.cursor ?? '';
      const ws = new WebSocket(aggregatesStreamUrl(window.location, cursor), wsProtocols());
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        status.live();
      };
      ws.onmessage = (m: MessageEvent) => {
        if (typeof m.data !== 'string') return;
        const batch = parseAggregatesMessage(m.data);
        if (!batch) {
          console.warn('node aggregates stream: a message that is not an aggregates batch');
          return;
        }
        queryClient.setQueryData<NodeAggregatesState>(queryKeys.nodeAggregates, (old) =>
          applyAggregates(old, batch),
        );
      };
      ws.onclose = () => {
        if (socket !== ws) return;
        socket = null;
        status.lost();
        if (!disposed) timer = setTimeout(connect, reconnectDelayMs(attempt++));
      };
    };

    connect();
    return () => {
      disposed = true;
      status.end();
      clearTimeout(timer);
      socket?.close();
    };
  }, [queryClient, enabled]);
}
