/**
 * The node page's pods table, kept here (../node-rows/store.ts) from the trace this server records, the
 * engine's or the observer's:
 *
 *   GET /api/v1/node/rows                      {cursor, words, rows}: every pod's row, the first screen at
 *                                              once (rows as core's encodeRows packs them)
 *   WebSocket /api/v1/node/rows/stream?since=  the rows that changed after `since` (every row without it,
 *                                              or when the cursor cannot be resumed), then one message per
 *                                              batch: each changed row once, the removed uids, the cursor
 *                                              (../node-rows/rows-client.ts)
 *
 * Access as the trace stream's: the Origin must be this server's page, the token (when set) is checked by
 * the access hook before the upgrade, and the streams are capped in total and per client address.
 * A malformed ?since= is a 400 Status naming the field. The node's aggregates (./node-aggregates.ts) are
 * registered with the rows: wherever the page's table is served, its loop strip and cadence are too.
 */
import type { Clock } from '@syncscope/core/clock';
import { RealClock } from '@syncscope/core/clock';
import { encodeRows } from '@syncscope/core/pod-state';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { RowsClient } from '../node-rows/rows-client.ts';
import { NodeRows, type PodSpecFacts } from '../node-rows/store.ts';
import nodeAggregatesRoutes from './node-aggregates.ts';
import { cursorParam } from './params.ts';
import { MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, type TraceStreamOptions } from './trace-stream.ts';
import { StreamCaps, streamRoute } from './ws-stream-route.ts';

interface NodeRowsRouteOptions extends TraceStreamOptions {
  /** the clock of the batches (default a RealClock at speed 1: the page's time, not the engine's) */
  clock?: Pick<Clock, 'setTimer'>;
}

async function nodeRowsRoutes(app: FastifyInstance, opts: NodeRowsRouteOptions): Promise<void> {
  // the rest of the node page (loop strip, cadence, deleted pods) is served beside its rows
  await app.register(nodeAggregatesRoutes, opts);
  const { trace, engine } = app.syncscope;
  const specFacts: PodSpecFacts = (uid) => {
    const pod = engine.getPodByUID(uid);
    if (!pod) return undefined;
    const created = Date.parse(pod.metadata.creationTimestamp ?? '');
    return {
      ...(Number.isNaN(created) ? {} : { created }),
      ...(pod.spec.terminationGracePeriodSeconds !== undefined
        ? { graceS: pod.spec.terminationGracePeriodSeconds }
        : {}),
    };
  };
  const store = new NodeRows({ clock: opts.clock ?? new RealClock(), specFacts });
  for (const ev of trace.since(0)) store.add(ev);
  const unsubscribe = trace.subscribe((ev) => store.add(ev), 'the node rows');
  store.tick();
  app.addHook('onClose', async () => {
    unsubscribe();
    store.close();
  });
  const caps = new StreamCaps(
    opts.maxStreams ?? MAX_STREAMS,
    opts.maxStreamsPerAddress ?? MAX_STREAMS_PER_ADDRESS,
    'node rows streams',
  );

  app.get('/api/v1/node/rows', READ_ROUTE, async () => {
    const { cursor, rows } = store.rows();
    return { cursor, ...encodeRows(rows) };
  });

  streamRoute(app, {
    url: '/api/v1/node/rows/stream',
    name: 'the node rows stream',
    caps,
    query: (q) => cursorParam(q.since),
    open: (socket, since) => new RowsClient(socket, store, since).start(),
  });
}

export default fp(nodeRowsRoutes, {
  name: 'syncscope-node-rows',
  dependencies: ['syncscope-context', '@fastify/websocket'],
});
