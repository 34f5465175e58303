/**
 * Imported kubelet logs, kept by the server so a replay can be shared as a link:
 *   POST   /api/v1/imports?name=            text/plain body (the log, ≤ 64 MiB; more is a 413), parsed while it
 *                                            arrives and kept on disk before the 201 {id, name, summary}
 *   GET    /api/v1/imports                  {items: meta[]}, oldest first
 *   GET    /api/v1/imports/{id}             the meta (name, size, lines, nodes, pods, time range, created)
 *   GET    /api/v1/imports/{id}/trace?since=&limit=   a page, in the shape of GET /api/v1/trace
 *   GET    /api/v1/imports/{id}/log?line=n  one line of the log as sent (text/plain)
 *   DELETE /api/v1/imports/{id}
 * Reads need the token when the server has one (as the live trace does); writes pass the server's write
 * guard. An id that is not one this store made is a 404 like an unknown one: no path leaves the store.
 *
 * Not wrapped in fastify-plugin: the body parser below (the raw request stream, counted here) stays local to
 * these routes, every other route keeps the API's 1 MiB text parser.
 */
import { isStatus } from '@syncscope/core/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { ImportStore, MAX_IMPORT_BYTES, NoKubeletLines, TooLarge } from '../imports/store.ts';
import { badRequest, intParam, sendStatus, status, stringParam, unsupportedMediaType } from '../status.ts';
import { nextSince, pageWindow } from './trace.ts';

/** A file name to show: 1-255 printable characters, no slash or backslash. */
const NAME = /^[^/\\\p{Cc}]{1,255}$/u;

export interface ImportsOptions {
  /** `<data-dir>/imports`; without it every route answers 404 (a server with no data dir keeps nothing). */
  dir?: string;
}

const notFound = (id: string) =>
  status(404, 'NotFound', `imports "${id}" not found`, { name: id, kind: 'imports' });
const tooLarge = () =>
  status(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_IMPORT_BYTES}`);

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

export default async function importsRoutes(app: FastifyInstance, opts: ImportsOptions): Promise<void> {
  const store = opts.dir ? new ImportStore(opts.dir) : undefined;
  await store?.init();

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  /** The store and the import's meta, or a 404 already sent. */
  const found = async (req: IdRequest, reply: FastifyReply) => {
    app.syncscope.requireToken(req);
    const meta = await store?.meta(req.params.id);
    if (!store || !meta) {
      sendStatus(reply, notFound(req.params.id));
      return undefined;
    }
    return { store, meta };
  };

  app.post<{ Querystring: { name?: string } }>('/api/v1/imports', WRITE_ROUTE, async (req, reply) => {
    app.syncscope.requireToken(req);
    if (!store) return sendStatus(reply, status(404, 'NotFound', 'this server keeps no imports'));
    const type = (req.headers['content-type'] ?? 'text/plain').split(';')[0]?.trim().toLowerCase() ?? '';
    if (type !== 'text/plain') return sendStatus(reply, unsupportedMediaType(type, ['text/plain']));
    if (Number(req.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES) {
      return sendStatus(reply.header('connection', 'close'), tooLarge());
    }
    const name = stringParam('name', req.query.name, NAME, 'a file name of 1-255 characters');
    if (isStatus(name)) return sendStatus(reply, name);
    const body = (req.body ?? []) as AsyncIterable<Buffer>;
    try {
      const meta = await store.write(body, name ?? 'kubelet.log');
      return reply.code(201).send({ id: meta.id, name: meta.name, summary: meta });
    } catch (e) {
      if (e instanceof TooLarge) return sendStatus(reply.header('connection', 'close'), tooLarge());
      if (e instanceof NoKubeletLines) return sendStatus(reply, badRequest(e.message));
      throw e;
    }
  });

  app.get('/api/v1/imports', READ_ROUTE, async (req) => {
    app.syncscope.requireToken(req);
    return { items: store ? await store.list() : [] };
  });

  app.get<{ Params: { id: string } }>('/api/v1/imports/:id', READ_ROUTE, async (req, reply) => {
    return (await found(req, reply))?.meta;
  });

  app.get<{ Params: { id: string }; Querystring: { since?: string; limit?: string } }>(
    '/api/v1/imports/:id/trace',
    READ_ROUTE,
    async (req, reply) => {
      const page = pageWindow(req.query);
      if (isStatus(page)) return sendStatus(reply, page);
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

  app.get<{ Params: { id: string }; Querystring: { line?: string } }>(
    '/api/v1/imports/:id/log',
    READ_ROUTE,
    async (req, reply) => {
      const line = intParam('line', req.query.line, 1);
      if (isStatus(line)) return sendStatus(reply, line);
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

  app.delete<{ Params: { id: string } }>('/api/v1/imports/:id', WRITE_ROUTE, async (req, reply) => {
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
