/**
 * The node page's loop strip, housekeeping cadence and recently deleted pods, kept here
 * (../node-aggregates/store.ts) from the trace this server records, the engine's or the observer's:
 *
 *   GET /api/v1/node/aggregates                      everything held (core's NodeAggregatesWire, `full`)
 *   WebSocket /api/v1/node/aggregates/stream?since=  what changed after `since` (everything without it, or
 *                                                    when the cursor cannot be resumed), then one message
 *                                                    per batch (../node-aggregates/aggregates-client.ts)
 *
 * Access as the rows stream's (ws-stream-route.ts): this server's page as Origin, the token checked before
 * the upgrade, streams capped in total and per client address. A malformed ?since= is a 400 naming it.
 */
import type { Clock } from '@syncscope/core/clock';
import { RealClock } from '@syncscope/core/clock';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { AggregatesClient } from '../node-aggregates/aggregates-client.ts';
import { NodeAggregates } from '../node-aggregates/store.ts';
import { cursorParam } from './params.ts';
import { MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, type TraceStreamOptions } from './trace-stream.ts';
import { StreamCaps, streamRoute } from './ws-stream-route.ts';

interface NodeAggregatesRouteOptions extends TraceStreamOptions {
  /** the clock of the batches (default a RealClock at speed 1: the page's time, not the engine's) */
  clock?: Pick<Clock, 'setTimer'>;
}

async function nodeAggregatesRoutes(app: FastifyInstance, opts: NodeAggregatesRouteOptions): Promise<void> {
  const { trace } = app.syncscope;
  const store = new NodeAggregates({ clock: opts.clock ?? new RealClock() });
  for (const ev of trace.since(0)) store.add(ev);
  const unsubscribe = trace.subscribe((ev) => store.add(ev), 'the node aggregates');
  store.tick();
  app.addHook('onClose', async () => {
    unsubscribe();
    store.close();
  });
  const caps = new StreamCaps(
    opts.maxStreams ?? MAX_STREAMS,
    opts.maxStreamsPerAddress ?? MAX_STREAMS_PER_ADDRESS,
    'node aggregates streams',
  );

  app.get('/api/v1/node/aggregates', READ_ROUTE, async () => store.current());

  streamRoute(app, {
    url: '/api/v1/node/aggregates/stream',
    name: 'the node aggregates stream',
    caps,
    query: (q) => cursorParam(q.since),
    open: (socket, since) => new AggregatesClient(socket, store, since).start(),
  });
}

export default fp(nodeAggregatesRoutes, {
  name: 'syncscope-node-aggregates',
  dependencies: ['syncscope-context', '@fastify/websocket'],
});
