/**
 * The pure half of the trace stream client: the WebSocket address, the resume point, the reconnect delay,
 * the engine's clock; the parsing of what the server sends is ./stream-message.ts (it checks every event
 * against the trace's schemas, which only a page that opens the trace stream loads). The hook in
 * src/api/use-trace-stream.ts wires these to a socket and the query cache.
 *
 * Protocol (WebSocket /api/v1/trace/stream?since=<seq>[&podUID=<uid>]: every event, or one pod's and the
 * node-wide ones): the server sends JSON messages
 *   {kind:'events', events: TraceEvent[]}   every event with seq > since, in batches, then live
 *   {kind:'resync', reason}                  this client fell behind; the server closes the socket and the
 *                                            client reconnects with since = the last seq it applied.
 */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

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
