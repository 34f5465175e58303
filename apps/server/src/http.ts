/**
 * The HTTP surface on its own: a Fastify instance with every route plugin registered against an Engine and
 * a trace, without starting anything. buildApp (app.ts) wires it to the real engine; unit tests call it with
 * a fake engine and drive it through app.inject().
 */
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import context, { BODY_LIMIT_BYTES, type ContextOptions, WS_BEARER_PROTOCOL_PREFIX } from './context.ts';
import type { Example } from './examples.ts';
import type { KubeletMetrics } from './metrics.ts';
import importsRoutes from './routes/imports.ts';
import logsRoutes from './routes/logs.ts';
import metricsRoutes from './routes/metrics.ts';
import nodeRoutes from './routes/node.ts';
import podsRoutes from './routes/pods.ts';
import simRoutes from './routes/sim.ts';
import traceRoutes from './routes/trace.ts';
import traceStream from './routes/trace-stream.ts';
import web from './routes/web.ts';
import type { SimControl } from './sim-control.ts';
import { methodNotAllowed, sendStatus } from './status.ts';

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
  /** `<data-dir>/imports`: where POST /api/v1/imports keeps logs (routes/imports.ts); none without it. */
  importsDir?: string;
  /** Made by buildApp before the engine starts so no event is missed; otherwise made here. */
  metrics?: KubeletMetrics;
}

export async function createHttpApp(opts: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: BODY_LIMIT_BYTES });
  // Every path a route serves, with its methods: any other method on it is a 405, not a 404.
  const served = new Map<string, Set<string>>();
  app.addHook('onRoute', (r) => {
    if (r.url.includes('*')) return;
    const set = served.get(r.url) ?? new Set<string>();
    for (const m of [r.method].flat()) set.add(m);
    served.set(r.url, set);
  });
  await app.register(fastifyWebsocket, {
    options: { maxPayload: 64 * 1024, handleProtocols: (offered) => chooseProtocol(offered) },
  });
  await app.register(context, {
    engine: opts.engine,
    trace: opts.trace,
    clock: opts.clock,
    token: opts.token,
  });
  await app.register(podsRoutes);
  await app.register(logsRoutes, { podLogsDirectory: opts.podLogsDirectory });
  await app.register(simRoutes, { sim: opts.sim });
  await app.register(metricsRoutes, { metrics: opts.metrics });
  await app.register(traceRoutes);
  await app.register(traceStream);
  await app.register(importsRoutes, { dir: opts.importsDir });
  await app.register(nodeRoutes, { examples: opts.examples });
  await app.register(web, { webRoot: opts.webRoot });
  for (const [url, methods] of [...served]) {
    const allowed = [...methods].sort();
    const others = METHODS.filter((m) => !methods.has(m));
    if (others.length === 0) continue;
    app.route({
      method: others,
      url,
      handler: async (req, reply) =>
        sendStatus(reply.header('allow', allowed.join(', ')), methodNotAllowed(req.method, allowed)),
    });
  }
  return app;
}
