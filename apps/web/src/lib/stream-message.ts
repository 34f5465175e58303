/**
 * A message of the trace stream (WebSocket /api/v1/trace/stream, protocol in ./stream.ts) read and checked:
 * every event goes through core's checkTraceEvent, the same check an imported NDJSON file gets. Kept apart
 * from ./stream.ts because the check carries the trace's schemas: only a page that opens the trace stream
 * (a pod's page) loads them, not the node page's first paint.
 */
import { checkTraceEvent, type TraceEvent } from '@syncscope/core/trace';

export type StreamMessage =
  | { kind: 'events'; events: TraceEvent[]; rejected: string[] }
  | { kind: 'resync'; reason: string }
  | { kind: 'invalid'; error: string };

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
