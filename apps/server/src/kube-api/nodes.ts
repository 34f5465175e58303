/**
 * The one Node, this server's (node-object.ts):
 *   GET /api/v1/nodes           NodeList (or Table) of it
 *   GET /api/v1/nodes/:name     the Node, or 404 `nodes "x" not found`
 * `kubectl describe node` then lists the pods on it through the pods' spec.nodeName field selector.
 * `?watch=` (and /api/v1/watch/nodes[/:name]) streams the Node each time its content changes.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { sendStatus } from '../status.ts';
import type { ListQuery } from './list-options.ts';
import type { Node } from './node-object.ts';
import { listDiffer, serveWatch } from './object-watch.ts';
import { type ListSpec, notFoundOf, sendList, sendObject } from './respond.ts';
import { nodePrinter } from './table/nodes.ts';

const NODE_LIST: ListSpec<Node> = {
  listKind: 'NodeList',
  printer: nodePrinter,
  fieldLabels: ['metadata.name', 'spec.unschedulable'],
  fieldOf: (n, f) => (f === 'metadata.name' ? n.metadata.name : String(n.spec.unschedulable === true)),
};

async function nodeObjectRoutes(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;
  const { versions, node } = app.kubeApi;
  const current = () => node.get(engine.nodeInfo(), clock.now(), String(versions.listVersion()));

  // a heartbeat alone is no change: the kubelet posts an unchanged status only every few minutes
  const diff = listDiffer(
    () => [current()],
    (n) => ({
      ...n,
      status: { ...n.status, conditions: n.status.conditions.map((c) => ({ ...c, lastHeartbeatTime: '' })) },
    }),
  );
  serveWatch(
    app,
    {
      kind: 'Node',
      spec: NODE_LIST,
      urls: ['/api/v1/nodes'],
      legacyUrls: ['/api/v1/watch/nodes', '/api/v1/watch/nodes/:name'],
      list: () => [current()],
      changes: diff.changes,
      start: diff.start,
    },
    (l) => app.syncscope.trace.subscribe(l),
    () => clock.now(),
  );

  app.get<{ Querystring: ListQuery }>('/api/v1/nodes', READ_ROUTE, async (req, reply) =>
    sendList(req, reply, NODE_LIST, [current()], versions, clock.now()),
  );
  app.get<{ Params: { name: string }; Querystring: ListQuery }>(
    '/api/v1/nodes/:name',
    READ_ROUTE,
    async (req, reply) => {
      const n = current();
      if (n.metadata.name !== req.params.name) return sendStatus(reply, notFoundOf('nodes', req.params.name));
      return sendObject(req, reply, nodePrinter, n, clock.now());
    },
  );
}

export default fp(nodeObjectRoutes, { name: 'syncscope-kube-nodes', dependencies: ['syncscope-context'] });
