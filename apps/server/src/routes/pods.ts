/**
 * Pod writes, as the API server serves them (the reads are in kube-api/pod-reads.ts and kube-api/events.ts):
 *   POST   /api/v1/namespaces/:ns/pods               create (YAML or JSON body) → 201 Pod
 *   DELETE /api/v1/namespaces/:ns/pods/:name[?gracePeriodSeconds=]  graceful delete → 200 Pod (deletionTimestamp set)
 *
 * A create or delete is acknowledged only once it is on disk: the engine the routes get from buildApp
 * stores the pod first (durableEngine, lifecycle.ts), and when the disk refuses its addPod/deletePod throw a
 * StatusError (507 InsufficientStorage, 503 ServiceUnavailable) before the engine acts; the error handler
 * sends it. Nothing in between awaits, so admission's checks still hold when the pod is stored.
 */
import { gracefulDeletion } from '@syncscope/core';
import { isStatus } from '@syncscope/core/api';
import { MAX_GRACE_PERIOD_SECONDS } from '@syncscope/core/api/validation';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { WRITE_ROUTE } from '../access.ts';
import { admitPod, MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { intParam, notFound, sendStatus, unsupportedMediaType } from '../status.ts';

interface NsParams {
  ns: string;
}
interface PodParams extends NsParams {
  name: string;
}

async function podsRoutes(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;

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
}

export default fp(podsRoutes, { name: 'syncscope-pods', dependencies: ['syncscope-context'] });
