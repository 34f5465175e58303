/**
 * GET /api/v1/imports/{id}/explain?pod=&node=&steps=   the model beside the real kubelet for an imported log
 * (@syncscope/core/explain): one explainer per kubelet the log holds (NodeExplainers: a pod is its node and
 * its UID, so a static pod with one UID on every master is one pod per master), each under the settings its
 * own lines give (its version line, its feature gates) over this server's --config. Per node those
 * settings, per pod each step read by the kubelet rule that covers it, agrees / differs / unexplained, and
 * the counts per pod, per node and for the log: the LogExplanation `import-log --explain` prints, with the
 * import's id and name.
 *
 *   pod     a pod's UID: only its steps, and only the nodes that ran it (each node's model still reads
 *           that node's whole log)
 *   node    a node's key as the importer gives it (`master-0`, `pid 3312` for a bare klog): only that node
 *   steps   which steps to return: all, differs (the default without ?pod=), none (counts only); with
 *           ?pod= the default is all
 * An unknown id is a 404 like the other import routes; a bad value a 400 naming the parameter. The newest
 * few answers are kept in memory (an import never changes), but not every step of a whole log.
 * Registered by ./imports.ts, which owns the store.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  type KeepSteps,
  type LogExplanation,
  NodeExplainers,
  paramsFromConfig,
} from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE } from '../access.ts';
import type { ImportMeta, ImportStore } from '../imports/store.ts';
import { checked, PathParam, StringQuery } from './params.ts';

/** Events read from the store at a time. */
const PAGE = 8192;
/** Explanations kept (an import never changes): the newest few, by import, pod, node and steps kept. */
const CACHED = 8;

const Params = Type.Object({ id: PathParam() });
const Query = Type.Object({
  pod: StringQuery(/^[A-Za-z0-9._:-]{1,128}$/, "a pod's UID"),
  node: StringQuery(/^[A-Za-z0-9._: -]{1,253}$/, "a node's name as the import gives it"),
  steps: StringQuery(/^(all|differs|none)$/, 'one of all, differs, none'),
});

type Found = (
  req: FastifyRequest & { params: { id: string } },
  reply: FastifyReply,
) => Promise<{ store: ImportStore; meta: ImportMeta } | undefined>;

/**
 * Every event of one import fed to `x`, read page by page: O(events), the steps kept by the explainers'
 * `keep`. Its unread entries (raw-read.ts) are fed as the log.raw events they stand for, each in its place among
 * the trace's events and numbered as the importer numbered the whole stream. With `node`, only that node's
 * events (the others' explainers are never made).
 */
async function explainImport(
  store: ImportStore,
  id: string,
  x: NodeExplainers,
  node: string | undefined,
): Promise<void> {
  const raws = store.rawEvents(id);
  let raw = await raws.next();
  let seq = 0;
  const add = (ev: TraceEvent) => {
    ev.seq = ++seq;
    if (node === undefined || (ev.node ?? '') === node) x.add(ev);
  };
  try {
    for (let since = 0; ; ) {
      const items = (await store.page(id, since, PAGE)) as TraceEvent[];
      for (const ev of items) {
        for (; !raw.done && raw.value.after < ev.seq; raw = await raws.next()) add(raw.value.event);
        add(ev);
      }
      if (items.length < PAGE) break;
      since = (items[items.length - 1] as TraceEvent).seq;
    }
    for (; !raw.done; raw = await raws.next()) add(raw.value.event);
  } finally {
    await raws.return(undefined);
  }
}

/** With ?pod=, only the nodes that ran the pod (the counts are theirs). */
function ranPod(r: LogExplanation, pod: string | undefined): LogExplanation {
  if (pod === undefined) return r;
  const nodes = r.nodes.filter((n) => n.pods.length > 0);
  return nodes.length === r.nodes.length ? r : { counts: r.counts, nodes };
}

export function importsExplainRoute(fastify: FastifyInstance, found: Found): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const cache = new Map<string, object>();
  app.get(
    '/api/v1/imports/:id/explain',
    checked(READ_ROUTE, { params: Params, querystring: Query }),
    async (req, reply) => {
      const it = await found(req, reply);
      if (!it) return;
      const { pod, node, steps } = req.query;
      const keep: KeepSteps = (steps as KeepSteps | undefined) ?? (pod ? 'all' : 'differs');
      const key = JSON.stringify([it.meta.id, it.meta.created, pod ?? '', node ?? null, keep]);
      const hit = cache.get(key);
      if (hit) return hit;
      const params = paramsFromConfig(app.syncscope.engine.nodeInfo().configuration);
      const x = new NodeExplainers({ params, keep, ...(pod ? { podUID: pod } : {}) });
      await explainImport(it.store, it.meta.id, x, node);
      const body = { id: it.meta.id, name: it.meta.name, ...ranPod(x.result(), pod) };
      // not every step of a whole log: that answer can be large
      if (keep !== 'all' || pod) cache.set(key, body);
      if (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
      return body;
    },
  );
}
