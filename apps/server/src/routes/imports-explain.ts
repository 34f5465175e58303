/**
 * GET /api/v1/imports/{id}/explain?pod=&steps=   the model beside the real kubelet for an imported log
 * (@syncscope/core/explain): per pod, each step read by the kubelet rule that covers it, agrees / differs /
 * unexplained, and the counts per pod and for the log. The log's own settings (its version line, its
 * feature gates) set the parameters over this server's --config.
 *
 *   pod     a pod's UID: only its steps (the model still reads the whole log)
 *   steps   which steps to return: all, differs (the default without ?pod=), none (counts only); with
 *           ?pod= the default is all
 * An unknown id is a 404 like the other import routes; a bad value a 400 naming the parameter. The newest
 * few answers are kept in memory (an import never changes), but not every step of a whole log.
 * Registered by ./imports.ts, which owns the store.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type KeepSteps, paramsFromConfig, TraceExplainer } from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE } from '../access.ts';
import type { ImportMeta, ImportStore } from '../imports/store.ts';
import { checked, PathParam, StringQuery } from './params.ts';

/** Events read from the store at a time. */
const PAGE = 8192;
/** Explanations kept (an import never changes): the newest few, by import, pod and steps kept. */
const CACHED = 8;

const Params = Type.Object({ id: PathParam() });
const Query = Type.Object({
  pod: StringQuery(/^[A-Za-z0-9._:-]{1,128}$/, "a pod's UID"),
  steps: StringQuery(/^(all|differs|none)$/, 'one of all, differs, none'),
});

type Found = (
  req: FastifyRequest & { params: { id: string } },
  reply: FastifyReply,
) => Promise<{ store: ImportStore; meta: ImportMeta } | undefined>;

/** The explanation of every event of one import, read page by page: O(events), the steps kept by `keep`. */
async function explainImport(
  store: ImportStore,
  id: string,
  explainer: TraceExplainer,
): Promise<TraceExplainer> {
  let since = 0;
  for (;;) {
    const items = (await store.page(id, since, PAGE)) as TraceEvent[];
    for (const ev of items) explainer.add(ev);
    if (items.length < PAGE) return explainer;
    since = (items[items.length - 1] as TraceEvent).seq;
  }
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
      const { pod, steps } = req.query;
      const keep: KeepSteps = (steps as KeepSteps | undefined) ?? (pod ? 'all' : 'differs');
      const key = `${it.meta.id}|${it.meta.created}|${pod ?? ''}|${keep}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const params = paramsFromConfig(app.syncscope.engine.nodeInfo().configuration);
      const x = new TraceExplainer({ params, keep, ...(pod ? { podUID: pod } : {}) });
      await explainImport(it.store, it.meta.id, x);
      const body = { id: it.meta.id, name: it.meta.name, ...x.result() };
      // not every step of a whole log: that answer can be large
      if (keep !== 'all' || pod) cache.set(key, body);
      if (cache.size > CACHED) cache.delete(cache.keys().next().value as string);
      return body;
    },
  );
}
