/**
 * The trace over HTTP:
 *   GET /api/v1/trace?since=&podUID=&limit=   { items, next, oldest, newest }: events with seq > since, oldest first.
 *       `next` is what to pass as ?since= to continue: the last seq returned when the page was cut by
 *       `limit`, otherwise the newest seq recorded (so a filtered poll does not rescan what it has seen).
 *       `oldest` is the oldest seq still held; since < oldest - 1 means events were dropped in between.
 *   GET /api/v1/trace/export?podUID=          NDJSON, one TraceEvent per line, streamed in chunks.
 */
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { podFilter } from '../store/index.ts';
import { checked, IntQuery, TextQuery } from './params.ts';

const DEFAULT_TRACE_LIMIT = 10_000;
const MAX_TRACE_LIMIT = 100_000;
const EXPORT_CHUNK = 1_000;

/** `?since=&limit=`: events after seq `since` (default 0), at most `limit` of them (≥ 1). */
export const PageQuery = { since: IntQuery(), limit: IntQuery(1) };

/**
 * `{items, ...rest}` as JSON, written a slice of events at a time with a turn of the event loop between
 * slices: a page of 100,000 events is some 20 MB of JSON, tens of ms in one JSON.stringify.
 */
async function pageJson(items: readonly TraceEvent[], rest: Record<string, number>): Promise<string> {
  const parts: string[] = [];
  let sliceEnd = performance.now() + 1;
  for (let i = 0; i < items.length; i += 200) {
    parts.push(
      items
        .slice(i, i + 200)
        .map((ev) => JSON.stringify(ev))
        .join(','),
    );
    if (performance.now() >= sliceEnd) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceEnd = performance.now() + 1;
    }
  }
  return `{"items":[${parts.join(',')}],${JSON.stringify(rest).slice(1)}`;
}

/**
 * The page a checked `?since=&limit=` asks for: since (default 0) and at most `max` events (limit, default
 * DEFAULT_TRACE_LIMIT, capped at MAX_TRACE_LIMIT).
 */
export function pageWindow(query: { since?: number; limit?: number }): { since: number; max: number } {
  return {
    since: query.since ?? 0,
    max: Math.min(query.limit ?? DEFAULT_TRACE_LIMIT, MAX_TRACE_LIMIT),
  };
}

/**
 * What to pass as the next ?since=: the last seq of a page that `max` cut, otherwise the newest seq known
 * (so a filtered poll does not rescan what it has seen), or a later one the page itself holds.
 */
export function nextSince(items: { seq: number }[], max: number, newest: number, since: number): number {
  const last = items[items.length - 1];
  return items.length === max && last ? last.seq : Math.max(newest, since, last?.seq ?? 0);
}

/**
 * A pod's events, plus the node-wide `server.start` markers: a restart of the server belongs on every pod's
 * timeline (what happened to the pod across it is the point of adopting its containers). The filter carries
 * the UID down to the journal, whose segment index skips segments without the pod (store/segment-index.ts).
 */
const byPod = (podUID: string | undefined) => (podUID ? podFilter(podUID) : undefined);

const TraceQuery = Type.Object({ ...PageQuery, podUID: TextQuery() });
const ExportQuery = Type.Object({ podUID: TextQuery() });

async function traceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { trace } = app.syncscope;

  app.get('/api/v1/trace', checked(READ_ROUTE, { querystring: TraceQuery }), async (req, reply) => {
    const page = pageWindow(req.query);
    const newest = trace.next - 1;
    // (events recorded while the journal was read may be in items, past `newest`)
    const items = await trace.sinceAsync(page.since, byPod(req.query.podUID), page.max);
    const rest = { next: nextSince(items, page.max, newest, page.since), oldest: trace.oldest, newest };
    return reply.type('application/json; charset=utf-8').send(await pageJson(items, rest));
  });

  app.get('/api/v1/trace/export', checked(READ_ROUTE, { querystring: ExportQuery }), async (req, reply) => {
    const filter = byPod(req.query.podUID);
    const end = trace.next - 1;
    // The whole history (the journal, then the ring) one chunk of lines at a time, up to the seq seen at the
    // start, so a large export never builds one string.
    async function* lines() {
      let chunk: string[] = [];
      for await (const ev of trace.history(0)) {
        if (ev.seq > end) break;
        if (filter && !filter(ev)) continue;
        chunk.push(JSON.stringify(ev));
        if (chunk.length >= EXPORT_CHUNK) {
          yield `${chunk.join('\n')}\n`;
          chunk = [];
        }
      }
      if (chunk.length > 0) yield `${chunk.join('\n')}\n`;
    }
    const safe = (req.query.podUID ?? '').replace(/[^A-Za-z0-9-]/g, '');
    const name = safe ? `syncscope-trace-${safe}.ndjson` : 'syncscope-trace.ndjson';
    return reply
      .type('application/x-ndjson')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(lines()));
  });
}

export default fp(traceRoutes, { name: 'syncscope-trace', dependencies: ['syncscope-context'] });
