/**
 * Pods and Events, as the API server serves them:
 *   GET    /api/v1/pods[?namespace=]                 PodList, all namespaces
 *   GET    /api/v1/namespaces/:ns/pods               PodList
 *   POST   /api/v1/namespaces/:ns/pods               create (YAML or JSON body) → 201 Pod
 *   GET    /api/v1/namespaces/:ns/pods/:name         Pod, or 404 Status
 *   DELETE /api/v1/namespaces/:ns/pods/:name[?gracePeriodSeconds=]  graceful delete → 200 Pod (deletionTimestamp set)
 *   GET    /api/v1/events                            EventList
 *
 * A create or delete is acknowledged only once it is on disk: the engine the routes get from buildApp
 * stores the pod first (durableEngine, lifecycle.ts), and when the disk refuses its addPod/deletePod throw a
 * StatusError (507 InsufficientStorage, 503 ServiceUnavailable) before the engine acts; the error handler
 * sends it. Nothing in between awaits, so admission's checks still hold when the pod is stored.
 */
import { gracefulDeletion } from '@syncscope/core';
import { isStatus, type Pod, type PodList } from '@syncscope/core/api';
import { MAX_GRACE_PERIOD_SECONDS } from '@syncscope/core/api/validation';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { admitPod, MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { intParam, notFound, sendStatus, stringParam, unsupportedMediaType } from '../status.ts';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

interface NsParams {
  ns: string;
}
interface PodParams extends NsParams {
  name: string;
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

  app.delete<{ Params: PodParams; Querystring: { gracePeriodSeconds?: string } }>(
    '/api/v1/namespaces/:ns/pods/:name',
    WRITE_ROUTE,
    async (req, reply) => {
      app.syncscope.requireToken(req);
      const grace = intParam('gracePeriodSeconds', req.query.gracePeriodSeconds, 0, MAX_GRACE_PERIOD_SECONDS);
      if (isStatus(grace)) return sendStatus(reply, grace);
      const pod = engine.getPod(req.params.ns, req.params.name);
      if (!pod?.metadata.uid) return sendStatus(reply, notFound(req.params.name));
      const asked = clock.now();
      engine.deletePod(pod.metadata.uid, grace); // stored, then started; throws (nothing started) if not stored
      const now = engine.getPodByUID(pod.metadata.uid);
      if (now?.metadata.deletionTimestamp) return now;
      // The engine may already have forgotten it; answer with the pod as it was asked to end.
      return gracefulDeletion(now ?? pod, grace, asked) ?? now ?? pod;
    },
  );

  app.get('/api/v1/events', READ_ROUTE, async () => ({
    apiVersion: 'v1',
    kind: 'EventList',
    metadata: {},
    items: engine.getEvents(),
  }));
}

export default fp(podsRoutes, { name: 'syncscope-pods', dependencies: ['syncscope-context'] });
