/**
 * The OpenAPI endpoints, as the apiserver serves them (kube-openapi's handler and handler3):
 *   GET /openapi/v3          the index: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}`
 *   GET /openapi/v3/api/v1   the core v1 document (JSON); with the index's hash it may be cached for good
 *   GET /openapi/v2          the Swagger 2.0 document as JSON; a client that accepts only the protobuf form
 *                            gets 406 NotAcceptable, as an apiserver without that encoding answers
 * Each answer has the document's ETag, and a matching If-None-Match is a 304. kubectl reads these to decide
 * how to validate (documents.ts), `kubectl explain` to describe fields.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../../access.ts';
import { sendStatus, status } from '../../status.ts';
import { openApiV2, openApiV3 } from './documents.ts';

interface Served {
  body: string;
  etag: string;
  hash: string;
}

function served(doc: object): Served {
  const body = JSON.stringify(doc);
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, hash, etag: `"${hash}"` };
}

/** Does `accept` take JSON (or anything)? Absent is anything. */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept
    .split(',')
    .map((r) => r.split(';')[0]?.trim().toLowerCase() ?? '')
    .some((t) => t === 'application/json' || t === 'application/*' || t === '*/*');
}

function send(req: FastifyRequest, reply: FastifyReply, doc: Served, immutable: boolean): FastifyReply {
  reply.header('etag', doc.etag);
  reply.header('cache-control', immutable ? 'public, immutable' : 'no-cache, private');
  reply.header('vary', 'Accept');
  if (req.headers['if-none-match'] === doc.etag) return reply.code(304).send();
  return reply.type('application/json').send(doc.body);
}

async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let v2: Served | undefined;
  let v3: Served | undefined;
  const v3Doc = () => {
    v3 ??= served(openApiV3());
    return v3;
  };

  app.get('/openapi/v2', READ_ROUTE, async (req, reply) => {
    if (!acceptsJson(req.headers.accept))
      return sendStatus(
        reply,
        status(
          406,
          'NotAcceptable',
          `the server does not serve the OpenAPI document as ${req.headers.accept}`,
        ),
      );
    v2 ??= served(openApiV2());
    return send(req, reply, v2, false);
  });

  app.get('/openapi/v3', READ_ROUTE, async (_req, reply) =>
    reply
      .type('application/json')
      .header('cache-control', 'no-cache, private')
      .send({
        paths: { 'api/v1': { serverRelativeURL: `/openapi/v3/api/v1?hash=${v3Doc().hash}` } },
      }),
  );

  app.get<{ Querystring: { hash?: string } }>('/openapi/v3/api/v1', READ_ROUTE, async (req, reply) => {
    const doc = v3Doc();
    return send(req, reply, doc, req.query.hash === doc.hash);
  });
}

export default fp(openApiRoutes, { name: 'syncscope-kube-openapi' });
