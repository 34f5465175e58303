/**
 * The live streams a page has open and how each is doing: every WebSocket hook (the pods table's rows, the
 * node's aggregates, a pod page's trace) reports here, and App's LiveStream turns their states into the
 * one connection state the badge, the health banner and the "stale since" words show. Which streams are
 * open follows the page: the node page's are its rows and aggregates, a pod page's is its trace.
 *
 *   trackStream() ──▶ connecting ──live()──▶ live ──lost()──▶ reconnecting ──live()──▶ live
 *                                     └──────────── end() (the view unmounted): no longer counted
 *
 * Together: reconnecting while any open stream is, else connecting while any is (or none is open yet),
 * else live.
 */
import { useSyncExternalStore } from 'react';
import type { ConnectionState } from '../lib/stream.ts';

const states = new Map<symbol, ConnectionState>();
const listeners = new Set<() => void>();
let combined: ConnectionState = 'connecting';

function update(): void {
  const all = [...states.values()];
  const next: ConnectionState = all.includes('reconnecting')
    ? 'reconnecting'
    : all.length === 0 || all.includes('connecting')
      ? 'connecting'
      : 'live';
  if (next === combined) return;
  combined = next;
  for (const l of listeners) l();
}

function set(id: symbol, state: ConnectionState | null): void {
  if (state === null) states.delete(id);
  else states.set(id, state);
  update();
}

/** One stream's reporter; call it when the socket is first being opened, `end` when the view lets go. */
export interface StreamStatus {
  live(): void;
  lost(): void;
  end(): void;
}

/** Starts counting one stream, as connecting. */
export function trackStream(name: string): StreamStatus {
  const id = Symbol(name);
  set(id, 'connecting');
  let ended = false;
  return {
    live: () => {
      if (!ended) set(id, 'live');
    },
    lost: () => {
      if (!ended) set(id, 'reconnecting');
    },
    end: () => {
      ended = true;
      set(id, null);
    },
  };
}

function subscribe(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The open streams' state together, now. */
export function streamsState(): ConnectionState {
  return combined;
}

/** The open streams' state together, re-rendering the caller when it changes. */
export function useStreamsState(): ConnectionState {
  return useSyncExternalStore(subscribe, streamsState);
}
