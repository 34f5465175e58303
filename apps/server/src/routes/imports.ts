/**
 * Imported kubelet logs, kept by the server so a replay can be shared as a link:
 *   POST   /api/v1/imports?name=            text/plain body (the log, ≤ 64 MiB, or that log gzip-compressed, as a
 *                                            rotated kubelet.log.1.gz is; more is a 413), parsed while it
 *                                            arrives (on a worker thread) and kept on disk before the 201
 *                                            {id, name, summary}; a disk that refuses is a 507 (no space) or
 *                                            503 naming the cause; past the quota (a count and bytes kept,
 *                                            --imports-max-count, --imports-max-bytes) a 403 Forbidden
 *                                            "exceeded quota" naming the limit: nothing older is evicted
 *   GET    /api/v1/imports                  {items: meta[]}, oldest first
 *   GET    /api/v1/imports/{id}             the meta (name, size, lines, nodes, pods, time range, created)
 *   GET    /api/v1/imports/{id}/trace?since=&limit=   a page, in the shape of GET /api/v1/trace
 *   GET    /api/v1/imports/{id}/log?line=n  one line of the log as sent (text/plain)
 *   GET    /api/v1/imports/{id}/raw?node=&q=&since=&limit=   the lines no family read, which make no event:
 *                                            {items: [{after, event}], total, next}, each its log.raw event
 *                                            (seq 0, its message read from the log) and how many trace events
 *                                            come before it; of one node, holding `q`, past the first `since`,
 *                                            at most `limit` (default 1000, at most 50000)
 *   GET    /api/v1/imports/{id}/explain     the model beside the kubelet, per pod and step (./imports-explain.ts)
 *   DELETE /api/v1/imports/{id}
 * Reads need the token when the server has one (as the live trace does); writes pass the server's write
 * guard. An id that is not one this store made is a 404 like an unknown one: no path leaves the store.
 *
 * Not wrapped in fastify-plugin: the body parser below (the raw request stream, counted here) stays local to
 * these routes, every other route keeps the API's 1 MiB text parser.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { GzipError } from '../gzip-input.ts';
import { NoKubeletLines } from '../imports/import-files.ts';
import { ParseFailed } from '../imports/parse-thread.ts';
import { MAX_RAW_PAGE } from '../imports/raw-read.ts';
import {
  DEFAULT_IMPORT_QUOTA,
  type ImportQuota,
  ImportStore,
  MAX_IMPORT_BYTES,
  QuotaExceeded,
  TooLarge,
} from '../imports/store.ts';
import { badRequest, sendStatus, status, unsupportedMediaType } from '../status.ts';
import { StoreWriteError, storeFailureStatus } from '../store/index.ts';
import { importsExplainRoute } from './imports-explain.ts';
import { checked, IntQuery, PathParam, StringQuery } from './params.ts';
import { nextSince, PageQuery, pageWindow } from './trace.ts';

/** A file name to show: 1-255 printable characters, no slash or backslash. */
const NAME = /^[^/\\\p{Cc}]{1,255}$/u;

export interface ImportsOptions {
  /** `<data-dir>/imports`; without it every route answers 404 (a server with no data dir keeps nothing). */
  dir?: string;
  /** How many imports and bytes are kept at most (--imports-max-count, --imports-max-bytes). */
  quota?: ImportQuota;
}

const notFound = (id: string) =>
  status(404, 'NotFound', `imports "${id}" not found`, { name: id, kind: 'imports' });
const tooLarge = () =>
  status(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_IMPORT_BYTES}`);

const IdParams = Type.Object({ id: PathParam() });
const PostQuery = Type.Object({ name: StringQuery(NAME, 'a file name of 1-255 characters') });
const PageQuerySchema = Type.Object(PageQuery);
const LineQuery = Type.Object({ line: IntQuery(1) });
const RawQuery = Type.Object({
  node: StringQuery(/^[^\p{Cc}]{1,253}$/u, "a node's name as the import gives it"),
  q: StringQuery(/^[^\p{Cc}]{1,256}$/u, 'a text of 1-256 characters'),
  since: IntQuery(),
  limit: IntQuery(1, MAX_RAW_PAGE),
});

export default async function importsRoutes(fastify: FastifyInstance, opts: ImportsOptions): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const store = opts.dir ? new ImportStore(opts.dir, opts.quota ?? DEFAULT_IMPORT_QUOTA) : undefined;
  await store?.init();
  app.addHook('onClose', async () => store?.close());

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  /** The store and the import's meta, or a 404 already sent. */
  const found = async (req: FastifyRequest & { params: { id: string } }, reply: FastifyReply) => {
    app.syncscope.requireToken(req);
    const meta = await store?.meta(req.params.id);
    if (!store || !meta) {
      sendStatus(reply, notFound(req.params.id));
      return undefined;
    }
    return { store, meta };
  };

  app.post('/api/v1/imports', checked(WRITE_ROUTE, { querystring: PostQuery }), async (req, reply) => {
    app.syncscope.requireToken(req);
    if (!store) return sendStatus(reply, status(404, 'NotFound', 'this server keeps no imports'));
    const type = (req.headers['content-type'] ?? 'text/plain').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'text/plain') return sendStatus(reply, unsupportedMediaType(type, ['text/plain']));
    if (Number(req.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES) {
      return sendStatus(reply.header('connection', 'close'), tooLarge());
    }
    const name = req.query.name;
    const body = (req.body ?? []) as AsyncIterable<Buffer>;
    const length = Number(req.headers['content-length']);
    // the parse after the body is the server's own work, however long: not the client's idleness, so no idle
    // timeout for this socket (the body itself must still arrive within the request timeout, limits.ts; an
    // injected request has no real socket)
    if (typeof req.raw.socket.setTimeout === 'function') req.raw.socket.setTimeout(0);
    try {
      const meta = await store.write(
        body,
        name ?? 'kubelet.log',
        Number.isFinite(length) ? length : undefined,
      );
      return reply.code(201).send({ id: meta.id, name: meta.name, summary: meta });
    } catch (e) {
      if (e instanceof TooLarge) return sendStatus(reply.header('connection', 'close'), tooLarge());
      if (e instanceof QuotaExceeded) {
        const forbidden = status(403, 'Forbidden', e.message, {
          name: name ?? 'kubelet.log',
          kind: 'imports',
        });
        return sendStatus(reply.header('connection', 'close'), forbidden);
      }
      if (e instanceof NoKubeletLines) return sendStatus(reply, badRequest(e.message));
      // the parser gave up on this log (e.g. JSON nested past the stack): the log, not the server
      if (e instanceof ParseFailed)
        return sendStatus(reply.header('connection', 'close'), badRequest(e.message));
      if (e instanceof GzipError) {
        const msg = `the body starts as gzip but cannot be inflated: ${e.message}`;
        return sendStatus(reply.header('connection', 'close'), badRequest(msg));
      }
      // the disk may refuse before the body is read: the connection is closed after the answer, as for a 413
      if (e instanceof StoreWriteError) {
        return sendStatus(reply.header('connection', 'close'), storeFailureStatus(e));
      }
      throw e;
    }
  });

  app.get('/api/v1/imports', READ_ROUTE, async (req) => {
    app.syncscope.requireToken(req);
    return { items: store ? await store.list() : [] };
  });

  app.get('/api/v1/imports/:id', checked(READ_ROUTE, { params: IdParams }), async (req, reply) => {
    return (await found(req, reply))?.meta;
  });

  app.get(
    '/api/v1/imports/:id/trace',
    checked(READ_ROUTE, { params: IdParams, querystring: PageQuerySchema }),
    async (req, reply) => {
      const page = pageWindow(req.query);
      const it = await found(req, reply);
      if (!it) return;
      const newest = it.meta.events;
      const items = (await it.store.page(it.meta.id, page.since, page.max)) as { seq: number }[];
      return {
        items,
        next: nextSince(items, page.max, newest, page.since),
        oldest: newest > 0 ? 1 : 0,
        newest,
      };
    },
  );

  app.get(
    '/api/v1/imports/:id/log',
    checked(READ_ROUTE, { params: IdParams, querystring: LineQuery }),
    async (req, reply) => {
      const line = req.query.line;
      if (line === undefined) return sendStatus(reply, badRequest('?line= is required'));
      const it = await found(req, reply);
      if (!it) return;
      const text = await it.store.line(it.meta.id, line);
      if (text === undefined) {
        return sendStatus(reply, badRequest(`line ${line} is past the end (${it.meta.lines} lines)`));
      }
      return reply.type('text/plain; charset=utf-8').send(text);
    },
  );

  app.get(
    '/api/v1/imports/:id/raw',
    checked(READ_ROUTE, { params: IdParams, querystring: RawQuery }),
    async (req, reply) => {
      const it = await found(req, reply);
      if (!it) return;
      const { node, q, since, limit } = req.query;
      return it.store.raw(it.meta.id, {
        ...(node === undefined ? {} : { node }),
        ...(q === undefined ? {} : { q }),
        since: since ?? 0,
        limit: limit ?? 1000,
      });
    },
  );

  importsExplainRoute(app, found);

  app.delete('/api/v1/imports/:id', checked(WRITE_ROUTE, { params: IdParams }), async (req, reply) => {
    const it = await found(req, reply);
    if (!it) return;
    await it.store.remove(it.meta.id);
    return {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Success',
      details: { name: it.meta.id, kind: 'imports' },
    };
  });
}
