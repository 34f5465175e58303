/**
 * Whether what the page shows is live: the trace stream's state as App's LiveStream provides it, with the
 * wall time it stopped being live. In a replay there is no stream and the value says so.
 *
 * useViewNow is the engine clock the node page counts with: it stops at the moment the stream went away,
 * so "ago" texts and countdowns freeze instead of counting on data that no longer arrives.
 */
import { createContext, useContext } from 'react';
import { useNode } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { type ConnectionState, estimateEngineNow } from '../lib/stream.ts';

export interface Connection {
  state: ConnectionState | 'replay';
  /** wall ms when the stream stopped being live (null while live, before the first open, or in a replay) */
  staleSince: number | null;
}

export const ConnectionContext = createContext<Connection>({ state: 'replay', staleSince: null });

export function useConnection(): Connection {
  return useContext(ConnectionContext);
}

export function useViewNow(intervalMs = 1_000): number {
  const now = useEngineNow(intervalMs);
  const { staleSince } = useConnection();
  const node = useNode();
  if (staleSince === null) return now;
  return estimateEngineNow(node.data?.clock, node.dataUpdatedAt, staleSince);
}
