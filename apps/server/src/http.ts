/**
 * The HTTP surface on its own: a Fastify instance with every route plugin registered against an Engine and
 * a trace, without starting anything. buildApp (app.ts) wires it to the real engine; unit tests call it with
 * a fake engine and drive it through app.inject().
 *
 * Besides the routes: the browser hardening headers (helmet: a CSP that allows only this origin and no
 * framing, nosniff, no referrer), and v1 Status answers for what fails before a route runs (a bad
 * percent-escape, an over-long path segment, headers over Node's limit, a malformed request).
 */

import type { Socket } from 'node:net';
import fastifyHelmet from '@fastify/helmet';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { type Access, WS_BEARER_PROTOCOL_PREFIX } from './access.ts';
import context, { BODY_LIMIT_BYTES, type ContextOptions, errorStatus } from './context.ts';
import type { Example } from './examples.ts';
import type { StreamingRuntime } from './kube-api/exec-proxy.ts';
import kubeApi from './kube-api/index.ts';
import type { NamespaceKeeper } from './kube-api/namespace-store.ts';
import watchRoutes from './kube-api/watch-routes.ts';
import { type ConnectionLimits, httpServerOptions, limitConnections } from './limits.ts';
import type { KubeletMetrics } from './metrics.ts';
import importsRoutes, { type ImportsOptions } from './routes/imports.ts';
import logsRoutes from './routes/logs.ts';
import metricsRoutes from './routes/metrics.ts';
import nodeRoutes from './routes/node.ts';
import nodeRowsRoutes from './routes/node-rows.ts';
import podsRoutes from './routes/pods.ts';
import simRoutes from './routes/sim.ts';
import traceRoutes from './routes/trace.ts';
import traceStream, { type TraceStreamOptions } from './routes/trace-stream.ts';
import web from './routes/web.ts';
import type { SimControl } from './sim-control.ts';
import { methodNotAllowed, rawStatusResponse, sendStatus, status } from './status.ts';

const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/**
 * The subprotocol the server answers a WebSocket with: the client's first one that carries no token (the
 * token is never echoed when there is another choice), else the first offered.
 */
export function chooseProtocol(offered: Set<string>): string | false {
  const list = [...offered];
  return list.find((p) => !p.startsWith(WS_BEARER_PROTOCOL_PREFIX)) ?? list[0] ?? false;
}

export interface HttpOptions extends ContextOptions {
  webRoot?: string;
  examples?: Example[];
  logger?: FastifyServerOptions['logger'];
  /** Where container logs are; default the engine's configuration.podLogsDirectory. */
  podLogsDirectory?: string;
  /** The simulated node's controls; absent on a real runtime (the /api/v1/sim writes then answer 404). */
  sim?: SimControl;
  /** A real runtime's streaming calls (pods' exec and port-forward); absent on the simulated node. */
  streaming?: StreamingRuntime;
  /** `<data-dir>/imports`: where POST /api/v1/imports keeps logs (routes/imports.ts); none without it. */
  importsDir?: string;
  /** `<data-dir>/store/namespaces.json`: where the namespaces the API creates are kept; memory without it. */
  namespaceFile?: NamespaceKeeper;
  /** The imports kept at most (routes/imports.ts); default DEFAULT_IMPORT_QUOTA. */
  importsQuota?: ImportsOptions['quota'];
  /** Made by buildApp before the engine starts so no event is missed; otherwise made here. */
  metrics?: KubeletMetrics;
  /** What /healthz says instead of `ok` (e.g. the pod store refusing writes); undefined when healthy. */
  health?: () => string | undefined;
  /** Caps on trace streams and on connections; defaults in routes/trace-stream.ts and limits.ts. */
  limits?: TraceStreamOptions & ConnectionLimits;
}

/**
 * The answer to a request Node's HTTP parser refused (Fastify's clientErrorHandler; `this` is the app):
 * a Status written straight to the socket, logged at debug. A reset or closed socket gets nothing.
 */
function clientError(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const s =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? status(
          431,
          'RequestHeaderFieldsTooLarge',
          'Request Header Fields Too Large: the request line and headers exceed the server limit',
        )
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? status(408, 'RequestTimeout', 'the request was not received in time')
        : status(400, 'BadRequest', `malformed HTTP request (${err.code ?? 'parse error'})`);
  this.log.debug({ code: err.code }, `client error: ${err.message}`);
  if (socket.writable) socket.write(rawStatusResponse(s));
  socket.destroy();
}

/** The Content-Security-Policy: everything from this origin only, nothing inline, never framed. */
export const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  baseUri: ["'self'"],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  scriptSrcAttr: ["'none'"],
  styleSrc: ["'self'"],
};

export async function createHttpApp(opts: HttpOptions): Promise<FastifyInstance> {
  // maxParamLength: a pod name may have 253 characters (Fastify's default of 100 would 404 its routes)
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: 1024 },
    frameworkErrors: (err, req, reply) => sendStatus(reply, errorStatus(err, req)),
    clientErrorHandler: clientError,
    ...httpServerOptions(),
  });
  limitConnections(app.server, opts.limits);
  // Every path a route serves, with its methods and access: any other method on it is a 405, not a 404.
  const served = new Map<string, { methods: Set<string>; routes: { config?: { access?: Access } }[] }>();
  app.addHook('onRoute', (r) => {
    if (r.url.includes('*')) return;
    const entry = served.get(r.url) ?? { methods: new Set<string>(), routes: [] };
    for (const m of [r.method].flat()) entry.methods.add(m);
    entry.routes.push(r);
    served.set(r.url, entry);
  });
  await app.register(fastifyHelmet, {
    // no upgrade-insecure-requests: the server speaks plain HTTP (TLS, if any, ends at a proxy)
    contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
  });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 64 * 1024, handleProtocols: (offered) => chooseProtocol(offered) },
    // A malformed frame is the client's mistake: ws closes the socket itself; log it without a stack.
    errorHandler: (err, socket, req) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code?.startsWith('WS_ERR_')) req.log.info({ code }, `websocket client error: ${err.message}`);
      else req.log.error({ err }, 'websocket handler failed');
      socket.terminate();
    },
  });
  await app.register(context, {
    engine: opts.engine,
    trace: opts.trace,
    clock: opts.clock,
    token: opts.token,
    bind: opts.bind,
    allowedHosts: opts.allowedHosts,
  });
  await app.register(watchRoutes, opts.limits ?? {});
  await app.register(podsRoutes);
  await app.register(kubeApi, {
    sim: opts.sim,
    streaming: opts.streaming,
    namespaceFile: opts.namespaceFile,
  });
  await app.register(logsRoutes, { podLogsDirectory: opts.podLogsDirectory });
  await app.register(simRoutes, { sim: opts.sim });
  await app.register(metricsRoutes, { metrics: opts.metrics });
  await app.register(traceRoutes);
  await app.register(traceStream, opts.limits ?? {});
  await app.register(nodeRowsRoutes, opts.limits ?? {});
  await app.register(importsRoutes, { dir: opts.importsDir, quota: opts.importsQuota });
  await app.register(nodeRoutes, { examples: opts.examples, health: opts.health });
  await app.register(web, { webRoot: opts.webRoot });
  for (const [url, { methods, routes }] of [...served]) {
    const allowed = [...methods].sort();
    const others = METHODS.filter((m) => !methods.has(m));
    if (others.length === 0) continue;
    // what a path allows is told only to those who may use it
    const access: Access = routes.every((r) => r.config?.access === 'public') ? 'public' : 'read';
    app.route({
      method: others,
      url,
      config: { access },
      handler: async (req, reply) =>
        sendStatus(reply.header('allow', allowed.join(', ')), methodNotAllowed(req.method, allowed)),
    });
  }
  return app;
}
