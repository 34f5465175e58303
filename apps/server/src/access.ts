/**
 * Who may use a route, decided on the route the router matched and enforced in one place.
 *
 * Every route declares its access in its options, `config: { access }` (type-checked through the module
 * augmentation below):
 *   - 'public': anyone who passes the Host check: the health endpoints and the static web app (the page must
 *     load to ask for the token);
 *   - 'read':   with a token, the token is needed; without one, anyone who passes the Host check;
 *   - 'write':  as 'read', and a browser request must come from the page this server served (Origin).
 *
 * The onRequest hook of `accessPlugin` runs after routing, so it sees `req.routeOptions.config` of the route
 * that will handle the request, however its path was spelled (percent-escapes, absolute-form targets,
 * doubled slashes): no spelling reaches a handler around it. A request no route matched goes to the 404
 * handler, which only ever answers a 404 Status or the web app's index.html. A route that declares nothing
 * is refused at `ready()`, and answered 403 should one ever be reached.
 *
 * The Host check holds with or without a token (hosts.ts): a web page whose DNS name is rebound to this
 * machine cannot read from it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type HostPolicy, hostAllowed } from './hosts.ts';
import { status } from './status.ts';

export type Access = 'public' | 'read' | 'write';
const ACCESS_LEVELS: readonly Access[] = ['public', 'read', 'write'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may use this route (access.ts); every route must say. */
    access?: Access;
    /** Set by access.ts on routes with a WebSocket handler: only they may answer an upgrade. */
    acceptsWebSocket?: boolean;
  }
  interface FastifyInstance {
    /** Every route registered so far with the access it declared (undefined: it declared none). */
    accessTable(): readonly RouteAccess[];
  }
}

interface RouteAccess {
  method: string;
  url: string;
  access: Access | undefined;
}

/** Route options that declare the access: `app.get(url, READ_ROUTE, handler)`. */
export const PUBLIC_ROUTE = { config: { access: 'public' } } as const;
export const READ_ROUTE = { config: { access: 'read' } } as const;
export const WRITE_ROUTE = { config: { access: 'write' } } as const;

/** The WebSocket subprotocol prefix that carries a bearer token, as the Kubernetes API server reads it. */
export const WS_BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** The shortest SYNCSCOPE_TOKEN the server accepts. */
export const MIN_TOKEN_LENGTH = 16;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isAccess(v: unknown): v is Access {
  return typeof v === 'string' && (ACCESS_LEVELS as readonly string[]).includes(v);
}

/** Compares in time independent of where (or whether, or in what length) the strings differ. */
export function tokenEquals(given: string, token: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

const isUpgrade = (req: FastifyRequest) => String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';

/**
 * Every token the request offers: `Authorization: Bearer`, and on a WebSocket upgrade (where a browser
 * cannot set headers) the bearer subprotocol. Never the query string: a URL ends up in logs and histories.
 */
export function offeredTokens(req: FastifyRequest): string[] {
  const out: string[] = [];
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (m?.[1]) out.push(m[1]);
  if (isUpgrade(req)) {
    for (const p of String(req.headers['sec-websocket-protocol'] ?? '').split(',')) {
      const proto = p.trim();
      if (!proto.startsWith(WS_BEARER_PROTOCOL_PREFIX)) continue;
      out.push(Buffer.from(proto.slice(WS_BEARER_PROTOCOL_PREFIX.length), 'base64url').toString('utf8'));
    }
  }
  return out;
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

/** The API server's own answer to a request without valid credentials. */
export const unauthorized = (): Status => status(401, 'Unauthorized', 'Unauthorized');

interface AccessOptions extends HostPolicy {
  /** When set, every route but the public ones needs it. */
  token?: string;
}

/** The Status that refuses the request under `opts`, or undefined when it may go on to its handler. */
function refusal(req: FastifyRequest, opts: AccessOptions): Status | undefined {
  const host = req.headers.host;
  // no Host at all is a hand-made request (HTTP/1.0, a test's injection), never a browser's
  if (host !== undefined && !hostAllowed(host, opts)) {
    return status(
      403,
      'Forbidden',
      `this server does not answer to Host ${JSON.stringify(host)}: start it with --allowed-host NAME to allow a name`,
    );
  }
  const access = req.is404 ? 'public' : req.routeOptions.config.access;
  if (!isAccess(access)) return status(403, 'Forbidden', 'this route declares no access rule');
  if ((access === 'write' || !SAFE_METHODS.has(req.method)) && !originAllowed(req.headers.origin, host)) {
    return status(403, 'Forbidden', `origin ${req.headers.origin} may not change state on this server`);
  }
  if (access !== 'public' && opts.token) {
    const token = opts.token;
    if (!offeredTokens(req).some((t) => tokenEquals(t, token))) return unauthorized();
  }
  // every route would otherwise answer an upgrade with 101 and close: only a WebSocket route may
  if (isUpgrade(req) && (req.is404 || req.routeOptions.config.acceptsWebSocket !== true)) {
    return status(404, 'NotFound', 'the server could not find the requested resource');
  }
  return undefined;
}

async function accessPlugin(app: FastifyInstance, opts: AccessOptions): Promise<void> {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (r) => {
    if (r.wsHandler || r.websocket) r.config = { ...r.config, acceptsWebSocket: true };
    routes.push(r);
  });
  const table = () =>
    routes.flatMap((r) =>
      [r.method].flat().map((method) => ({ method, url: r.url, access: r.config?.access })),
    );
  app.decorate('accessTable', table);
  // onRoute hooks of inner scopes may still fill in `config.access`, so the check waits for ready()
  app.addHook('onReady', async () => {
    const bad = table().filter((r) => !isAccess(r.access));
    if (bad.length > 0) {
      throw new Error(
        `routes without an access rule (config.access): ${bad.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
  });
  app.addHook('onRequest', async (req, reply) => {
    const refused = refusal(req, opts);
    if (refused) return reply.code(refused.code).type('application/json').send(refused);
  });
}

export default fp(accessPlugin, { name: 'syncscope-access' });
