/**
 * The node page's pods table, kept here (../node-rows/store.ts) from the trace this server records, the
 * engine's or the observer's:
 *
 *   GET /api/v1/node/rows                      {cursor, words, rows}: every pod's row, the first screen at
 *                                              once (rows as core's encodeRows packs them)
 *   GET /api/v1/node/rows?namespace=&name=     the same with that pod's row alone (none when the node has no
 *                                              such pod): a pod page's header before anything else arrives
 *   WebSocket /api/v1/node/rows/stream?since=  the rows that changed after `since` (every row without it,
 *                                              or when the cursor cannot be resumed), then one message per
 *                                              batch: each changed row once, the removed uids, the cursor
 *                                              (../node-rows/rows-client.ts)
 *
 * Access as the trace stream's: the Origin must be this server's page, the token (when set) is checked by
 * the access hook before the upgrade, and the streams are capped in total and per client address.
 * A malformed ?since=, a ?name= without ?namespace= or the other way round, or either not spelt as
 * Kubernetes spells them, is a 400 Status naming the field. The node's aggregates (./node-aggregates.ts) are
 * registered with the rows: wherever the page's table is served, its loop strip and cadence are too.
 */

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Clock } from '@syncscope/core/clock';
import { RealClock } from '@syncscope/core/clock';
import { encodeRows } from '@syncscope/core/pod-state';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { RowsClient } from '../node-rows/rows-client.ts';
import { NodeRows, type PodSpecFacts } from '../node-rows/store.ts';
import { badParam, sendStatus } from '../status.ts';
import nodeAggregatesRoutes from './node-aggregates.ts';
import { checked, cursorParam, StringQuery } from './params.ts';
import { MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, type TraceStreamOptions } from './trace-stream.ts';
import { StreamCaps, streamRoute } from './ws-stream-route.ts';

/** A namespace or a pod's name as the apiserver accepts them (a DNS subdomain, at most 253 characters). */
const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const NAME_WANT = 'must be lower case letters, digits, "-" or ".", at most 253';
const RowsQuery = Type.Object({
  namespace: StringQuery(OBJECT_NAME, NAME_WANT),
  name: StringQuery(OBJECT_NAME, NAME_WANT),
});

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

  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get('/api/v1/node/rows', checked(READ_ROUTE, { querystring: RowsQuery }), async (req, reply) => {
      const { namespace, name } = req.query;
      if (name === undefined && namespace === undefined) {
        const { cursor, rows } = store.rows();
        return { cursor, ...encodeRows(rows) };
      }
      if (namespace === undefined)
        return sendStatus(reply, badParam('namespace', '', 'is required with ?name='));
      if (name === undefined) return sendStatus(reply, badParam('name', '', 'is required with ?namespace='));
      const row = store.row(namespace, name);
      return { cursor: store.cursor, ...encodeRows(row ? [row] : []) };
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
