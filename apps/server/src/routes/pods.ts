/**
 * Pod writes, as the API server serves them (the reads are in kube-api/pod-reads.ts and kube-api/events.ts):
 *   POST   /api/v1/namespaces/:ns/pods               create (YAML or JSON body) → 201 Pod
 *   PUT    /api/v1/namespaces/:ns/pods/:name         replace → 200 Pod (only what a pod may change; else 422)
 *   PATCH  /api/v1/namespaces/:ns/pods/:name         json, merge or strategic-merge patch → 200 Pod (else 415)
 *   DELETE /api/v1/namespaces/:ns/pods/:name[?gracePeriodSeconds=]  DeleteOptions body, preconditions (409)
 *                                                    → 200 Pod (deletionTimestamp set, or already gone)
 *   (GET …pods?watch=true is served by kube-api/watch-routes.ts before the read handlers)
 * Every write takes `?dryRun=All` (checked and answered as if made; nothing stored, nothing run) and
 * `fieldValidation`, read with the apiserver's rules (kube-api/write-options.ts); a DELETE also
 * gracePeriodSeconds and propagationPolicy. The query is checked by the route's compiled TypeBox schema.
 * A created or replaced object that leaves out apiVersion or kind gets `v1` and `Pod`, as the path says.
 *
 * A create, update or delete is acknowledged only once it is on disk: the engine the routes get from buildApp
 * stores the pod first (durableEngine, lifecycle.ts), and when the disk refuses its addPod/updatePod/deletePod throw a
 * StatusError (507 InsufficientStorage, 503 ServiceUnavailable) before the engine acts; the error handler
 * sends it. Nothing in between awaits, so admission's checks still hold when the pod is stored.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isStatus, type Pod, type Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { WRITE_ROUTE } from '../access.ts';
import { admitPod, MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { deletePod, patchPod, replacePod, type WriteContext } from '../kube-api/pod-writes.ts';
import {
  applyFieldValidation,
  readWriteOptions,
  WriteQuery,
  withPodType,
} from '../kube-api/write-options.ts';
import { sendStatus, unsupportedMediaType } from '../status.ts';
import { checked, PathParam } from './params.ts';

const NsParams = Type.Object({ ns: PathParam() });
const PodParams = Type.Object({ ns: PathParam(), name: PathParam() });

async function podsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, clock } = app.syncscope;

  const create = checked(WRITE_ROUTE, { params: NsParams, querystring: WriteQuery });
  app.post('/api/v1/namespaces/:ns/pods', create, async (req, reply) => {
    app.syncscope.requireToken(req);
    const opts = readWriteOptions('CreateOptions', req.query);
    if (isStatus(opts)) return sendStatus(reply, opts);
    const contentType = req.headers['content-type'];
    if (manifestMediaType(contentType) === undefined) {
      return sendStatus(reply, unsupportedMediaType(contentType ?? '', MANIFEST_MEDIA_TYPES));
    }
    const parsed = parseManifest(typeof req.body === 'string' ? req.body : '', contentType);
    if (!parsed.ok) return sendStatus(reply, parsed.status);
    const value = applyFieldValidation(withPodType(parsed.value), req.query.fieldValidation, reply);
    const admitted = admitPod(value, req.params.ns, engine, clock);
    if (!admitted.ok) return sendStatus(reply, admitted.status);
    if (opts.dryRun) return reply.code(201).send(admitted.pod);
    engine.addPod(admitted.pod); // stored, then handed to the loop; throws (nothing added) if not stored
    return reply.code(201).send(engine.getPodByUID(admitted.pod.metadata.uid as string) ?? admitted.pod);
  });

  // writes beyond create: kube-api/pod-writes.ts; resourceVersions from the watch index (watch-routes.ts)
  const writes = (): WriteContext => ({ engine, versions: app.podVersions, clock });
  const answer = (reply: FastifyReply, out: Pod | Status) =>
    isStatus(out) ? sendStatus(reply, out) : reply.code(200).send(out);
  const write = checked(WRITE_ROUTE, { params: PodParams, querystring: WriteQuery });
  const text = (body: unknown) => (typeof body === 'string' ? body : '');

  app.put('/api/v1/namespaces/:ns/pods/:name', write, async (req, reply) => {
    const opts = readWriteOptions('UpdateOptions', req.query);
    if (isStatus(opts)) return sendStatus(reply, opts);
    const body = (v: unknown) => applyFieldValidation(v, req.query.fieldValidation, reply);
    const replaced = replacePod(writes(), req.params, text(req.body), req.headers['content-type'], {
      ...opts,
      body,
    });
    return answer(reply, replaced);
  });

  app.patch('/api/v1/namespaces/:ns/pods/:name', write, async (req, reply) => {
    const opts = readWriteOptions('PatchOptions', req.query);
    if (isStatus(opts)) return sendStatus(reply, opts);
    const patched = await patchPod(writes(), req.params, text(req.body), req.headers['content-type'], opts);
    return answer(reply, patched);
  });

  app.delete('/api/v1/namespaces/:ns/pods/:name', write, async (req, reply) => {
    app.syncscope.requireToken(req);
    return answer(
      reply,
      deletePod(writes(), req.params, text(req.body), req.headers['content-type'], req.query),
    );
  });
}

export default fp(podsRoutes, { name: 'syncscope-pods', dependencies: ['syncscope-context'] });
