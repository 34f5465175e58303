/**
 * Pods and Events, as the API server serves them:
 *   GET    /api/v1/pods[?namespace=]                 PodList, all namespaces
 *   GET    /api/v1/namespaces/:ns/pods               PodList
 *   POST   /api/v1/namespaces/:ns/pods               create (YAML or JSON body) → 201 Pod
 *   GET    /api/v1/namespaces/:ns/pods/:name         Pod, or 404 Status
 *   PUT    /api/v1/namespaces/:ns/pods/:name         replace → 200 Pod (only what a pod may change; else 422)
 *   PATCH  /api/v1/namespaces/:ns/pods/:name         json, merge or strategic-merge patch → 200 Pod (else 415)
 *   DELETE /api/v1/namespaces/:ns/pods/:name[?gracePeriodSeconds=]  DeleteOptions body, preconditions (409)
 *                                                    → 200 Pod (deletionTimestamp set, or already gone)
 *   (GET …pods?watch=true is served by kube-api/watch-routes.ts before these handlers)
 *   GET    /api/v1/events                            EventList
 *
 * A create, update or delete is acknowledged only once it is on disk: the engine the routes get from buildApp
 * stores the pod first (durableEngine, lifecycle.ts), and when the disk refuses its addPod/updatePod/deletePod throw a
 * StatusError (507 InsufficientStorage, 503 ServiceUnavailable) before the engine acts; the error handler
 * sends it. Nothing in between awaits, so admission's checks still hold when the pod is stored.
 */
import { isStatus, type Pod, type PodList, type Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { admitPod, MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { deletePod, patchPod, replacePod, type WriteContext } from '../kube-api/pod-writes.ts';
import { notFound, sendStatus, stringParam, unsupportedMediaType } from '../status.ts';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface NsParams {
  ns: string;
}
interface PodParams extends NsParams {
  name: string;
}
interface DeleteQuery {
  gracePeriodSeconds?: string;
  propagationPolicy?: string;
  dryRun?: string;
}

function podList(items: Pod[]): PodList {
  return { apiVersion: 'v1', kind: 'PodList', metadata: {}, items };
}

async function podsRoutes(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;

  app.get<{ Querystring: { namespace?: string } }>('/api/v1/pods', READ_ROUTE, async (req, reply) => {
    const ns = stringParam('namespace', req.query.namespace, NAMESPACE, 'must be a namespace name');
    if (isStatus(ns)) return sendStatus(reply, ns);
    return podList(engine.getPods().filter((p) => !ns || p.metadata.namespace === ns));
  });

  app.get<{ Params: NsParams }>('/api/v1/namespaces/:ns/pods', READ_ROUTE, async (req) =>
    podList(engine.getPods().filter((p) => p.metadata.namespace === req.params.ns)),
  );

  app.post<{ Params: NsParams; Body: string }>(
    '/api/v1/namespaces/:ns/pods',
    WRITE_ROUTE,
    async (req, reply) => {
      app.syncscope.requireToken(req);
      const contentType = req.headers['content-type'];
      if (manifestMediaType(contentType) === undefined) {
        return sendStatus(reply, unsupportedMediaType(contentType ?? '', MANIFEST_MEDIA_TYPES));
      }
      const parsed = parseManifest(typeof req.body === 'string' ? req.body : '', contentType);
      if (!parsed.ok) return sendStatus(reply, parsed.status);
      const admitted = admitPod(parsed.value, req.params.ns, engine, clock);
      if (!admitted.ok) return sendStatus(reply, admitted.status);
      engine.addPod(admitted.pod); // stored, then handed to the loop; throws (nothing added) if not stored
      return reply.code(201).send(engine.getPodByUID(admitted.pod.metadata.uid as string) ?? admitted.pod);
    },
  );

  app.get<{ Params: PodParams }>('/api/v1/namespaces/:ns/pods/:name', READ_ROUTE, async (req, reply) => {
    const pod = engine.getPod(req.params.ns, req.params.name);
    return pod ?? sendStatus(reply, notFound(req.params.name));
  });

  // writes beyond create: kube-api/pod-writes.ts; resourceVersions from the watch index (watch-routes.ts)
  const writes = (): WriteContext => ({ engine, versions: app.podVersions, clock });
  const answer = (reply: FastifyReply, out: Pod | Status) =>
    isStatus(out) ? sendStatus(reply, out) : reply.code(200).send(out);
  type Write = { Params: PodParams; Body: string; Querystring: DeleteQuery };
  const text = (body: unknown) => (typeof body === 'string' ? body : '');

  app.put<Write>('/api/v1/namespaces/:ns/pods/:name', WRITE_ROUTE, async (req, reply) =>
    answer(reply, replacePod(writes(), req.params, text(req.body), req.headers['content-type'])),
  );

  app.patch<Write>('/api/v1/namespaces/:ns/pods/:name', WRITE_ROUTE, async (req, reply) =>
    answer(reply, patchPod(writes(), req.params, text(req.body), req.headers['content-type'])),
  );

  app.delete<Write>('/api/v1/namespaces/:ns/pods/:name', WRITE_ROUTE, async (req, reply) => {
    app.syncscope.requireToken(req);
    return answer(
      reply,
      deletePod(writes(), req.params, text(req.body), req.headers['content-type'], req.query),
    );
  });

  app.get('/api/v1/events', READ_ROUTE, async () => ({
    apiVersion: 'v1',
    kind: 'EventList',
    metadata: {},
    items: engine.getEvents(),
  }));
}

export default fp(podsRoutes, { name: 'syncscope-pods', dependencies: ['syncscope-context'] });
