/**
 * The pure half of the trace stream client: the WebSocket address, the parsing of what the server sends,
 * the reconnect delay. The hook in src/api/use-trace-stream.ts wires these to a socket and the query cache.
 *
 * Protocol (WebSocket /api/v1/trace/stream?since=<seq>[&podUID=<uid>]: every event, or one pod's and the
 * node-wide ones): the server sends JSON messages
 *   {kind:'events', events: TraceEvent[]}   every event with seq > since, in batches, then live
 *   {kind:'resync', reason}                  this client fell behind; the server closes the socket and the
 *                                            client reconnects with since = the last seq it applied.
 */
import { checkTraceEvent, type TraceEvent } from '@syncscope/core/trace';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

export type StreamMessage =
  | { kind: 'events'; events: TraceEvent[]; rejected: string[] }
  | { kind: 'resync'; reason: string }
  | { kind: 'invalid'; error: string };

/** ws:// or wss:// address of the stream on the page's own host; with `podUID`, that pod's events only. */
export function streamUrl(
  location: { protocol: string; host: string },
  since: number,
  podUID?: string,
): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const pod = podUID ? `&podUID=${encodeURIComponent(podUID)}` : '';
  return `${scheme}//${location.host}/api/v1/trace/stream?since=${Math.max(0, since)}${pod}`;
}

/**
 * Parses one message. Events that fail the structural check are left out and their errors returned, so
 * one bad event cannot poison the cache.
 */
export function parseStreamMessage(data: string): StreamMessage {
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    return { kind: 'invalid', error: 'message is not JSON' };
  }
  if (typeof msg !== 'object' || msg === null) return { kind: 'invalid', error: 'message is not an object' };
  const o = msg as Record<string, unknown>;
  if (o.kind === 'resync') return { kind: 'resync', reason: typeof o.reason === 'string' ? o.reason : '' };
  if (o.kind !== 'events' || !Array.isArray(o.events)) {
    return { kind: 'invalid', error: `unknown message kind ${String(o.kind)}` };
  }
  const events: TraceEvent[] = [];
  const rejected: string[] = [];
  for (const ev of o.events) {
    const err = checkTraceEvent(ev);
    if (err) rejected.push(err);
    else events.push(ev as TraceEvent);
  }
  return { kind: 'events', events, rejected };
}

/**
 * Where to resume after the socket closed, given the oldest seq the server still holds. Resuming from
 * lastSeq is gapless while the server holds lastSeq + 1; otherwise the server would only ask for a resync
 * again, so we resume from what it holds and report the gap (the caller refetches its REST state).
 */
export function resumeSince(lastSeq: number, oldest: number | null): { since: number; gap: boolean } {
  const since = Math.max(0, lastSeq);
  if (since > 0 && oldest !== null && oldest > since + 1) return { since: oldest - 1, gap: true };
  return { since, gap: false };
}

const RECONNECT_BASE_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/** Delay before reconnect attempt `attempt` (0-based): 0.5 s doubling, capped at 10 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** Math.max(0, attempt));
}

/**
 * The engine's clock now, estimated from a sample taken from GET /api/v1/node (engine time `now` running at
 * `speed` × wall time, read at wall time `sampledAt`). The simulated node may run faster than the wall, and
 * every time the UI prints (AGE, "ago", the timeline's right edge) is on the engine's clock.
 */
export function estimateEngineNow(
  sample: { now: number; speed: number } | undefined,
  sampledAt: number,
  wallNow: number,
): number {
  if (!sample) return wallNow;
  return sample.now + Math.max(0, wallNow - sampledAt) * (sample.speed > 0 ? sample.speed : 1);
}
