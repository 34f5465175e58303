/**
 * Namespaces (namespace-store.ts keeps them):
 *   GET    /api/v1/namespaces          NamespaceList (or Table)
 *   GET    /api/v1/namespaces/:name    Namespace, or 404 `namespaces "x" not found`
 *   POST   /api/v1/namespaces          create (JSON or YAML) → 201 Namespace
 *   PUT    /api/v1/namespaces/:name    update its labels and annotations → 200 Namespace
 *   PATCH  /api/v1/namespaces/:name    json, merge or strategic-merge patch of them → 200 (else 415)
 *   DELETE /api/v1/namespaces/:name    → 200 Namespace, Terminating until its pods are gone
 * Every write takes `?dryRun=All`. `?watch=` (and /api/v1/watch/namespaces[/:name]) streams every change:
 * a create, a delete (MODIFIED to Terminating, DELETED once empty), a namespace that comes and goes with
 * the pods in it. With a NamespaceFile (the managed server's data dir) each write is on disk before it is
 * answered (a full disk 507, another refusal 503, nothing changed), and the namespaces kept are read back at
 * start.
 *
 * A pod is created only in a namespace that exists and is not Terminating, as the apiserver's
 * NamespaceLifecycle admission plugin decides it: else a 404 `namespaces "x" not found`, or a 403 naming
 * the namespace being terminated (checked before the create route's handler, routes/pods.ts).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isStatus, type Status } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { parseManifest } from '../admission.ts';
import { checked, PathParam } from '../routes/params.ts';
import { sendStatus, status, unsupportedMediaType } from '../status.ts';
import { readDeleteOptions } from './delete-options.ts';
import { protobufBodies, readObjectBody } from './kube-protobuf.ts';
import type { ListQuery } from './list-options.ts';
import type { Namespace } from './namespace-object.ts';
import { type NamespaceKeeper, NamespaceStore } from './namespace-store.ts';
import { type NamespaceChange, patchedNamespace, readNamespaceUpdate } from './namespace-update.ts';
import { listDiffer, serveWatch } from './object-watch.ts';
import { PATCH_MEDIA_TYPES, type PatchType } from './patch.ts';
import { type ListSpec, notFoundOf, sendList, sendObject } from './respond.ts';
import { namespacePrinter } from './table/nodes.ts';
import { readWriteOptions, WriteQuery } from './write-options.ts';

const NAMESPACE_FIELDS = ['metadata.name', 'status.phase'] as const;
const POD_CREATE = '/api/v1/namespaces/:ns/pods';

/** The name a pod create asks for ('' when it is generated or the body does not parse). */
function podName(req: FastifyRequest): string {
  const parsed = parseManifest(typeof req.body === 'string' ? req.body : '', req.headers['content-type']);
  const meta = parsed.ok ? (parsed.value as { metadata?: { name?: unknown } } | null)?.metadata : undefined;
  return typeof meta?.name === 'string' ? meta.name : '';
}

/** NamespaceLifecycle's refusal of a pod create in `ns`, or undefined when the namespace takes it. */
function lifecycleRefusal(
  ns: Namespace | undefined,
  nsName: string,
  req: FastifyRequest,
): Status | undefined {
  if (!ns) return notFoundOf('namespaces', nsName);
  if (ns.status.phase !== 'Terminating') return undefined;
  const name = podName(req);
  const why = `unable to create new content in namespace ${nsName} because it is being terminated`;
  return status(403, 'Forbidden', `pods "${name}" is forbidden: ${why}`, {
    name,
    kind: 'pods',
    causes: [
      {
        reason: 'NamespaceTerminating',
        message: `namespace ${nsName} is being terminated`,
        field: 'metadata.namespace',
      },
    ],
  });
}

export interface NamespaceRouteOptions {
  /** Where the namespaces are kept; without it they live as long as the process. */
  namespaceFile?: NamespaceKeeper | undefined;
}

async function namespaceRoutes(fastify: FastifyInstance, opts: NamespaceRouteOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { engine, clock, trace } = app.syncscope;
  const { versions, startedAt } = app.kubeApi;
  const file = opts.namespaceFile;
  const store = new NamespaceStore(
    {
      pods: () => engine.getPods(),
      now: () => clock.now(),
      version: () => versions.listVersion(),
      deletePod: (uid) => engine.deletePod(uid),
      ...(file ? { keeper: file } : {}),
    },
    startedAt,
    file?.load(),
  );
  // what a stop cut short: pods of a Terminating namespace deleted, an empty one removed
  app.addHook('onReady', async () => store.resume());
  // the namespace controller's last step, on every pod that leaves
  const offSweep = trace.subscribe((ev) => {
    if (ev.type === 'config.update' && ev.op === 'REMOVE') store.sweep();
  });
  app.addHook('onClose', async () => offSweep());

  const spec: ListSpec<Namespace> = {
    listKind: 'NamespaceList',
    printer: namespacePrinter,
    fieldLabels: NAMESPACE_FIELDS,
    fieldOf: (ns, f) => (f === 'metadata.name' ? ns.metadata.name : ns.status.phase),
  };
  const all = () => store.list();
  const diff = listDiffer(all);
  serveWatch(
    app,
    {
      kind: 'Namespace',
      spec,
      urls: ['/api/v1/namespaces'],
      legacyUrls: ['/api/v1/watch/namespaces', '/api/v1/watch/namespaces/:name'],
      list: all,
      // the diff reads no event: it compares the list with the last one
      changes: () => diff.changes(),
      start: diff.start,
    },
    (listener) => {
      const offTrace = trace.subscribe((ev) => {
        if (ev.type === 'config.update') listener(ev);
      });
      const offStore = store.subscribe(() => listener(STORE_CHANGE));
      return () => {
        offTrace();
        offStore();
      };
    },
    () => clock.now(),
  );

  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST' || req.routeOptions.url !== POD_CREATE) return;
    const nsName = (req.params as { ns: string }).ns;
    const refused = lifecycleRefusal(store.get(nsName), nsName, req);
    if (refused) return sendStatus(reply, refused);
  });

  app.get<{ Querystring: ListQuery }>('/api/v1/namespaces', READ_ROUTE, async (req, reply) =>
    sendList(req, reply, spec, all(), versions, clock.now()),
  );

  app.get<{ Params: { ns: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns',
    READ_ROUTE,
    async (req, reply) => {
      const ns = store.get(req.params.ns);
      if (!ns) return sendStatus(reply, notFoundOf('namespaces', req.params.ns));
      return sendObject(req, reply, namespacePrinter, ns, clock.now());
    },
  );

  const answer = (reply: FastifyReply, code: number, out: Namespace | Status) =>
    isStatus(out) ? sendStatus(reply, out) : reply.code(code).send(out);

  // the writes in a context of their own, where protobuf bodies are bytes (kubectl create namespace)
  await app.register(async (child) => {
    protobufBodies(child);
    const writes = child.withTypeProvider<TypeBoxTypeProvider>();
    writes.post(
      '/api/v1/namespaces',
      checked(WRITE_ROUTE, { querystring: WriteQuery }),
      async (req, reply) => {
        const opts = readWriteOptions('CreateOptions', req.query);
        if (isStatus(opts)) return sendStatus(reply, opts);
        const parsed = readObjectBody(req, 'Namespace');
        if (!parsed.ok) return sendStatus(reply, parsed.status);
        return answer(reply, 201, store.create(parsed.value, opts.dryRun));
      },
    );
    const oneNamespace = checked(WRITE_ROUTE, {
      params: Type.Object({ ns: PathParam() }),
      querystring: WriteQuery,
    });
    // update and patch change what a user owns of a namespace: its labels and annotations
    const change = (name: string, dryRun: boolean, read: (old: Namespace) => NamespaceChange | Status) => {
      const old = store.get(name);
      if (!old) return notFoundOf('namespaces', name);
      const asked = read(old);
      return isStatus(asked) ? asked : store.update(name, asked, dryRun);
    };
    writes.put('/api/v1/namespaces/:ns', oneNamespace, async (req, reply) => {
      const opts = readWriteOptions('UpdateOptions', req.query);
      if (isStatus(opts)) return sendStatus(reply, opts);
      const parsed = readObjectBody(req, 'Namespace');
      if (!parsed.ok) return sendStatus(reply, parsed.status);
      return answer(
        reply,
        200,
        change(req.params.ns, opts.dryRun, (old) => readNamespaceUpdate(old, parsed.value)),
      );
    });
    writes.patch('/api/v1/namespaces/:ns', oneNamespace, async (req, reply) => {
      const opts = readWriteOptions('PatchOptions', req.query);
      if (isStatus(opts)) return sendStatus(reply, opts);
      const contentType = req.headers['content-type'] ?? '';
      const type = contentType.split(';')[0]?.trim().toLowerCase() as PatchType;
      if (!(PATCH_MEDIA_TYPES as readonly string[]).includes(type))
        return sendStatus(reply, unsupportedMediaType(contentType, PATCH_MEDIA_TYPES));
      const body = typeof req.body === 'string' ? req.body : '';
      return answer(
        reply,
        200,
        change(req.params.ns, opts.dryRun, (old) => patchedNamespace(old, type, body)),
      );
    });
    writes.delete('/api/v1/namespaces/:ns', oneNamespace, async (req, reply) => {
      const body = typeof req.body === 'string' ? req.body : '';
      const opts = readDeleteOptions(body, req.headers['content-type'], req.query);
      if ('kind' in opts) return sendStatus(reply, opts);
      return answer(reply, 200, store.delete(req.params.ns, opts.dryRun));
    });
  });
}

/** What the store's listener hands the watch: any event does, as the namespace diff reads none. */
const STORE_CHANGE = { type: 'config.update' } as TraceEvent;

export default fp(namespaceRoutes, {
  name: 'syncscope-kube-namespaces',
  dependencies: ['syncscope-context'],
});
