/**
 * Namespaces: this server keeps no Namespace objects; the ones it lists are those its pods are in, and
 * `default` always. Each is Active; its creationTimestamp is that of its oldest pod (`default` without pods:
 * when the server started).
 *   GET /api/v1/namespaces          NamespaceList (or Table)
 *   GET /api/v1/namespaces/:name    Namespace, or 404 `namespaces "x" not found`
 * `?watch=` (and /api/v1/watch/namespaces[/:name]) streams a namespace as it appears with its first pod and
 * goes with its last (`default` stays).
 */
import { type Pod, rfc3339 } from '@syncscope/core/api';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { sendStatus } from '../status.ts';
import type { ListQuery } from './list-options.ts';
import type { Namespace } from './namespace-object.ts';
import { listDiffer, serveWatch } from './object-watch.ts';
import { type ListSpec, notFoundOf, sendList, sendObject } from './respond.ts';
import { namespacePrinter } from './table/nodes.ts';

/** The namespaces of `pods`, plus default, by name. */
function namespacesOf(pods: readonly Pod[], startedAt: number, resourceVersion: string): Namespace[] {
  const oldest = new Map<string, string>([['default', rfc3339(startedAt)]]);
  for (const p of pods) {
    const ns = p.metadata.namespace ?? 'default';
    const created = p.metadata.creationTimestamp ?? rfc3339(startedAt);
    const seen = oldest.get(ns);
    if (seen === undefined || created < seen) oldest.set(ns, created);
  }
  return [...oldest.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, creationTimestamp]) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        resourceVersion,
        creationTimestamp,
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    }));
}

const NAMESPACE_FIELDS = ['metadata.name', 'status.phase'] as const;

async function namespaceRoutes(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;
  const { versions, startedAt } = app.kubeApi;
  const all = () => namespacesOf(engine.getPods(), startedAt, String(versions.listVersion()));

  const spec: ListSpec<Namespace> = {
    listKind: 'NamespaceList',
    printer: namespacePrinter,
    fieldLabels: NAMESPACE_FIELDS,
    fieldOf: (ns, f) => (f === 'metadata.name' ? ns.metadata.name : ns.status.phase),
  };
  const diff = listDiffer(all);
  serveWatch(
    app,
    {
      kind: 'Namespace',
      spec,
      urls: ['/api/v1/namespaces'],
      legacyUrls: ['/api/v1/watch/namespaces', '/api/v1/watch/namespaces/:name'],
      list: all,
      // namespaces come and go with pods
      changes: (ev) => (ev.type === 'config.update' ? diff.changes() : []),
      start: diff.start,
    },
    (l) => app.syncscope.trace.subscribe(l),
    () => clock.now(),
  );

  app.get<{ Querystring: ListQuery }>('/api/v1/namespaces', READ_ROUTE, async (req, reply) =>
    sendList(req, reply, spec, all(), versions, clock.now()),
  );

  app.get<{ Params: { ns: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns',
    READ_ROUTE,
    async (req, reply) => {
      const ns = all().find((n) => n.metadata.name === req.params.ns);
      if (!ns) return sendStatus(reply, notFoundOf('namespaces', req.params.ns));
      return sendObject(req, reply, namespacePrinter, ns, clock.now());
    },
  );
}

export default fp(namespaceRoutes, {
  name: 'syncscope-kube-namespaces',
  dependencies: ['syncscope-context'],
});
