/**
 * Whether what the page shows is live: the state of the page's streams (the node page's rows and
 * aggregates, a pod page's trace) as App's LiveStream provides it, with the wall time they stopped being
 * live. In a replay there is no stream and the value says so.
 *
 * useViewNow is the engine clock every page counts with (AGE, "ago", countdowns, the timeline's right
 * edge): estimated from the last GET /api/v1/node sample (engine time and speed), so it follows a sped-up
 * simulated node; the wall clock until the first sample; a replay's last event, fixed. It stops at the
 * moment the stream went away, so nothing counts on data that no longer arrives.
 */
import { createContext, useContext, useEffect, useState } from 'react';
import { useNode } from '../api/queries.ts';
import { type ConnectionState, estimateEngineNow } from '../lib/stream.ts';
import { useReplay } from '../replay/context.ts';
import { clockText } from './liveness.ts';
import './stale.css';

export interface Connection {
  state: ConnectionState | 'replay';
  /** wall ms when the streams stopped being live (null while live, before the first open, or in a replay) */
  staleSince: number | null;
}

/**
 * The connection after the streams' state became `state` at wall time `now`: stale from the moment a
 * stream that had been live (`wasLive`) is lost, until all are live again. A stream still connecting
 * (a page just opened, or changed) keeps what was: it has lost nothing yet.
 */
export function nextConnection(
  prev: Connection,
  state: ConnectionState,
  wasLive: boolean,
  now: number,
): Connection {
  if (state === 'live') return { state, staleSince: null };
  if (state === 'reconnecting') return { state, staleSince: prev.staleSince ?? (wasLive ? now : null) };
  return { state, staleSince: prev.staleSince };
}

export const ConnectionContext = createContext<Connection>({ state: 'replay', staleSince: null });

export function useConnection(): Connection {
  return useContext(ConnectionContext);
}

/** "live", or "stale since hh:mm:ss" once the stream is gone: what a page says of its newest data. */
export function liveWord(staleSince: number | null): string {
  return staleSince === null ? 'live' : `stale since ${clockText(staleSince)}`;
}

/** The engine's clock now (ms), re-rendering the caller every `intervalMs` of wall time while live. */
export function useViewNow(intervalMs = 1_000): number {
  const node = useNode();
  const replay = useReplay();
  const { staleSince } = useConnection();
  const frozen = replay !== null || staleSince !== null;
  const [wallNow, setWallNow] = useState(() => Date.now());
  useEffect(() => {
    if (frozen) return;
    setWallNow(Date.now());
    const id = setInterval(() => setWallNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs, frozen]);
  if (replay) return replay.now;
  return estimateEngineNow(node.data?.clock, node.dataUpdatedAt, staleSince ?? wallNow);
}
