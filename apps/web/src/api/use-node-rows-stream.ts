/**
 * useNodeRowsStream: while the pods table is shown, one WebSocket to /api/v1/node/rows/stream keeps the
 * cached rows (queries.ts, ['node-rows']) current, one setQueryData per batch. The server sends at most a
 * batch every 250 ms, each changed row once, so the page's work follows the rows that change, not the
 * node's event rate.
 *
 *   rows fetched ──open ?since=<cursor>──▶ batches ──close / error──▶ wait (backing off) ──▶ open again
 *
 * It opens only once the rows were fetched (their cursor is the first ?since=) and every reconnect resumes
 * after the newest cursor applied: the server answers with what changed meanwhile, or with every row when
 * it can no longer tell (a restarted server), which replaces the cache.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { applyRowsBatch, type NodeRowsState, parseRowsBatch } from '../lib/node-rows-cache.ts';
import { reconnectDelayMs } from '../lib/stream.ts';
import { wsProtocols } from './auth.ts';
import { queryKeys } from './queries.ts';
import { trackStream } from './stream-status.ts';

function rowsStreamUrl(location: { protocol: string; host: string }, since: string): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const query = since ? `?since=${encodeURIComponent(since)}` : '';
  return `${scheme}//${location.host}/api/v1/node/rows/stream${query}`;
}

/** Keeps the rows live while `enabled` (the rows were fetched, and this is not a replay). */
export function useNodeRowsStream(enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    const status = trackStream('the node rows stream');
    let socket: WebSocket | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let disposed = false;

    const connect = () => {
      const cursor = queryClient.getQueryData<NodeRowsState>(queryKeys.nodeRows)?.cursor ?? '';
      const ws = new WebSocket(rowsStreamUrl(window.location, cursor), wsProtocols());
      socket = ws;
      ws.onopen = () => {
        attempt = 0;
        status.live();
      };
      ws.onmessage = (m: MessageEvent) => {
        if (typeof m.data !== 'string') return;
        const batch = parseRowsBatch(m.data);
        if (!batch) {
          console.warn('node rows stream: a message that is not a rows batch');
          return;
        }
        queryClient.setQueryData<NodeRowsState>(queryKeys.nodeRows, (old) => applyRowsBatch(old, batch));
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
