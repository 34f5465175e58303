/**
 * The OpenAPI endpoints, as the apiserver serves them (kube-openapi's handler and handler3):
 *   GET /openapi/v3          the index: `{"paths":{"api/v1":{"serverRelativeURL":"/openapi/v3/api/v1?hash=…"}}}`
 *   GET /openapi/v3/api/v1   the core v1 document (JSON); with the index's hash it may be cached for good
 *   GET /openapi/v2          the Swagger 2.0 document, negotiated by `Accept` (below): JSON, or gnostic's
 *                            protobuf `openapi.v2.Document` (gnostic.ts; kubectl up to 1.26 asks only for
 *                            that, under either spelling of its media type); any other type is a 406
 * Each answer has the document's ETag (the v2 forms share the JSON's, told apart by `Vary: Accept`), and a
 * matching If-None-Match is a 304. Each document is built once, on its first request. kubectl reads these
 * to validate manifests (documents.ts) and to build apply patches, `kubectl explain` to describe fields.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../../access.ts';
import { sendStatus, status } from '../../status.ts';
import { openApiV2, openApiV3 } from './documents.ts';
import { encodeGnosticV2 } from './gnostic.ts';

/** The media type of the v2 protobuf form as served; requests may also name it with `@v1.0`. */
const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * Content negotiation, as kube-openapi's handler does it (with goautoneg): the `Accept` header (absent or
 * empty is `*∕*`) is split into media ranges, sorted by q-value, highest first, a concrete type before a
 * wildcard one at equal q; the first range that one of the offers matches (type and subtype equal, or `*`)
 * picks that offer. No match is a 406. As in that handler, a range's q-value orders it but never excludes it
 * (`q=0` still matches), and a q-value that does not parse is 0.
 */
interface MediaRange {
  type: string;
  subType: string;
  q: number;
}

interface Offer<T> {
  type: string;
  subType: string;
  value: T;
}

/** The media ranges of `accept`, best first; a range that is neither `*` nor `type/subtype` is skipped. */
function parseAccept(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.split(';');
    const sp = range.split('/');
    const type = (sp[0] ?? '').trim().toLowerCase();
    let subType: string;
    if (sp.length === 1 && type === '*') subType = '*';
    else if (sp.length === 2) subType = (sp[1] ?? '').trim().toLowerCase();
    else continue;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim() !== 'q') continue;
      const n = Number(param.slice(eq + 1).trim());
      q = Number.isFinite(n) && param.slice(eq + 1).trim() !== '' ? n : 0;
    }
    ranges.push({ type, subType, q });
  }
  const wild = (s: string) => (s === '*' ? 1 : 0);
  // Array.prototype.sort is stable: equal ranges keep the client's order
  return ranges.sort((a, b) => b.q - a.q || wild(a.type) - wild(b.type) || wild(a.subType) - wild(b.subType));
}

/** The offer `accept` picks (see above), or undefined when no range matches any offer. */
function negotiate<T>(accept: string | undefined, offers: readonly Offer<T>[]): T | undefined {
  for (const r of parseAccept(accept?.trim() ? accept : '*/*'))
    for (const o of offers)
      if ((r.type === o.type || r.type === '*') && (r.subType === o.subType || r.subType === '*'))
        return o.value;
  return undefined;
}

/**
 * Does `If-None-Match` header `header` name entity tag `etag` (a quoted tag)? As Go's http.ServeContent
 * reads it: a comma-separated list, `*` matching any, a weak `W/` tag comparing equal to its strong form.
 */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

interface Served {
  body: Buffer;
  type: string;
  etag: string;
  hash: string;
}

function served(doc: object): Served {
  const body = Buffer.from(JSON.stringify(doc));
  const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
  return { body, type: 'application/json', hash, etag: `"${hash}"` };
}

type V2Form = 'json' | 'protobuf';

const V2_OFFERS: readonly Offer<V2Form>[] = [
  { type: 'application', subType: 'json', value: 'json' },
  { type: 'application', subType: 'com.github.proto-openapi.spec.v2@v1.0+protobuf', value: 'protobuf' },
  { type: 'application', subType: 'com.github.proto-openapi.spec.v2.v1.0+protobuf', value: 'protobuf' },
];

function send(req: FastifyRequest, reply: FastifyReply, doc: Served, immutable: boolean): FastifyReply {
  reply.header('etag', doc.etag);
  reply.header('cache-control', immutable ? 'public, immutable' : 'no-cache, private');
  reply.header('vary', 'Accept');
  if (etagMatches(req.headers['if-none-match'], doc.etag)) return reply.code(304).send();
  return reply.type(doc.type).send(doc.body);
}

async function openApiRoutes(app: FastifyInstance): Promise<void> {
  let v2: Served | undefined;
  let v2Protobuf: Served | undefined;
  let v3: Served | undefined;
  const v2Doc = () => {
    v2 ??= served(openApiV2());
    return v2;
  };
  const v3Doc = () => {
    v3 ??= served(openApiV3());
    return v3;
  };

  app.get('/openapi/v2', READ_ROUTE, async (req, reply) => {
    const form = negotiate(req.headers.accept, V2_OFFERS);
    if (form === undefined) {
      reply.header('vary', 'Accept');
      return sendStatus(
        reply,
        status(
          406,
          'NotAcceptable',
          `the server does not serve the OpenAPI document as ${req.headers.accept}`,
        ),
      );
    }
    const json = v2Doc();
    if (form === 'json') return send(req, reply, json, false);
    if (!v2Protobuf) {
      const bytes = encodeGnosticV2(openApiV2());
      const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      v2Protobuf = { ...json, body, type: OPENAPI_V2_PROTOBUF };
    }
    return send(req, reply, v2Protobuf, false);
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
