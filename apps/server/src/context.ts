/**
 * The shared context every route plugin reads through `app.syncscope`: the engine, its trace and clock, and
 * the write guard. Also the API-wide behaviour: every body is read as text (YAML or JSON, parsed by the
 * handler) up to BODY_LIMIT_BYTES, every error leaves as a v1 Status, and every request passes the access
 * rules of `guardRequest` (an onRequest hook, so they hold before any route — or 404 — runs):
 *
 *   - without a token (the server listens on loopback only) the Host header must be a loopback name, so a
 *     page on another site cannot reach this server by rebinding its own DNS name to 127.0.0.1;
 *   - a request that changes state and carries an Origin must come from the page this server served;
 *   - with a token, changes (any method but GET/HEAD/OPTIONS) and the sensitive reads (the trace, its
 *     export and stream, container logs) need it: `Authorization: Bearer <token>`, or on a GET of a
 *     protected read (a browser cannot set headers on a WebSocket or a download link) `?token=<token>` or the
 *     WebSocket subprotocol `base64url.bearer.authorization.k8s.io.<base64url token>`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { PassiveClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Engine } from './engine.ts';
import { badParam, REASON_BY_CODE, StatusError, sendStatus, status } from './status.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The WebSocket subprotocol prefix that carries a bearer token, as the Kubernetes API server reads it. */
export const WS_BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** The trace as the routes read it: a TraceRecorder or anything shaped like one. */
export type TraceSource = Pick<TraceRecorder, 'since' | 'subscribe' | 'next' | 'oldest'>;

export interface SyncscopeContext {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  /**
   * Throws a 401 StatusError unless the request carries the token (always passes without one). The
   * onRequest guard already applies it to every change; routes call it as well, so a route that is moved
   * or renamed stays guarded.
   */
  requireToken(req: FastifyRequest): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    syncscope: SyncscopeContext;
  }
}

export interface ContextOptions {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  /** When set, changes and sensitive reads need it (see the header). Set when listening beyond loopback. */
  token?: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Reads that show what runs on the node in detail: the trace (with every pod spec) and container output. */
const PROTECTED_READS = [
  /^\/api\/v1\/trace(\/export|\/stream)?\/?$/,
  /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/log\/?$/,
];

export function isProtectedRead(path: string): boolean {
  return PROTECTED_READS.some((re) => re.test(path));
}

/** Compares in time independent of where (or whether, or in what length) the strings differ. */
export function tokenEquals(given: string, token: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** Every token the request offers: the bearer header, and on a protected GET the query and subprotocol. */
export function offeredTokens(req: FastifyRequest, path: string): string[] {
  const out: string[] = [];
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (m?.[1]) out.push(m[1]);
  if (req.method === 'GET' && isProtectedRead(path)) {
    const q = (req.query as { token?: unknown } | undefined)?.token;
    if (typeof q === 'string' && q !== '') out.push(q);
    for (const p of String(req.headers['sec-websocket-protocol'] ?? '').split(',')) {
      const proto = p.trim();
      if (!proto.startsWith(WS_BEARER_PROTOCOL_PREFIX)) continue;
      out.push(Buffer.from(proto.slice(WS_BEARER_PROTOCOL_PREFIX.length), 'base64url').toString('utf8'));
    }
  }
  return out;
}

/** True for a Host header naming this machine's loopback: localhost, 127.x.y.z or [::1], any port. */
/** A listen address (`127.0.0.1`, `::1`, `localhost`) on the loopback interface: --host needs no token then. */
export function isLoopbackAddress(addr: string): boolean {
  return isLoopbackHost(addr.includes(':') && !addr.startsWith('[') ? `[${addr}]` : addr);
}

export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : (host.split(':')[0] ?? '');
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
  );
}

/** Allows a request with no Origin (non-browser clients) or one from the page this server served. */
export function originAllowed(origin: string | undefined, host: string | undefined): boolean {
  if (!origin) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

const unauthorized = () =>
  status(
    401,
    'Unauthorized',
    'this server listens beyond loopback: send Authorization: Bearer <SYNCSCOPE_TOKEN>',
  );

/** The access rules of the header, or the Status that refuses the request. */
export function guardRequest(
  req: FastifyRequest,
  token: string | undefined,
): ReturnType<typeof status> | undefined {
  const path = req.url.split('?')[0] ?? '/';
  // no Host at all is a hand-made request (HTTP/1.0, a test's injection), never a browser's
  if (!token && req.headers.host !== undefined && !isLoopbackHost(req.headers.host)) {
    return status(
      403,
      'Forbidden',
      `this server listens on loopback only and answers only to a loopback Host, not ${JSON.stringify(req.headers.host ?? '')}`,
    );
  }
  if (!SAFE_METHODS.has(req.method) && !originAllowed(req.headers.origin, req.headers.host)) {
    return status(403, 'Forbidden', `origin ${req.headers.origin} may not change state on this server`);
  }
  if (token && (!SAFE_METHODS.has(req.method) || isProtectedRead(path))) {
    const ok = offeredTokens(req, path).some((t) => tokenEquals(t, token));
    if (!ok) return unauthorized();
  }
  return undefined;
}

/** Every query parameter of this API is single-valued; one given twice is refused rather than guessed at. */
function repeatedParam(query: unknown): ReturnType<typeof status> | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) return badParam(k, v.join(','), 'may be given only once');
  }
  return undefined;
}

async function context(app: FastifyInstance, opts: ContextOptions): Promise<void> {
  const { engine, trace, clock, token } = opts;
  app.decorate('syncscope', {
    engine,
    trace,
    clock,
    requireToken(req: FastifyRequest) {
      if (!token) return;
      const path = req.url.split('?')[0] ?? '/';
      if (!offeredTokens(req, path).some((t) => tokenEquals(t, token))) throw new StatusError(unauthorized());
    },
  });

  app.addHook('onRequest', async (req, reply) => {
    const refused = guardRequest(req, token) ?? repeatedParam(req.query);
    if (refused) return sendStatus(reply, refused);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  app.setErrorHandler((err: FastifyError | StatusError, req, reply) => {
    if (err instanceof StatusError) return sendStatus(reply, err.status);
    const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    if (code >= 500) req.log.error({ err }, 'request failed');
    const message =
      code === 413
        ? `Request entity too large: limit is ${BODY_LIMIT_BYTES}`
        : code >= 500
          ? 'Internal error'
          : err.message;
    return sendStatus(reply, status(code, REASON_BY_CODE[code] ?? 'BadRequest', message));
  });
}

export default fp(context, { name: 'syncscope-context' });
