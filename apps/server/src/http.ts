/**
 * The HTTP surface on its own: a Fastify instance with every route plugin registered against an Engine and
 * a trace, without starting anything. buildApp (app.ts) wires it to the real engine; unit tests call it with
 * a fake engine and drive it through app.inject().
 */
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import context, { BODY_LIMIT_BYTES, type ContextOptions } from './context.ts';
import type { Example } from './examples.ts';
import type { KubeletMetrics } from './metrics.ts';
import logsRoutes from './routes/logs.ts';
import metricsRoutes from './routes/metrics.ts';
import nodeRoutes from './routes/node.ts';
import podsRoutes from './routes/pods.ts';
import simRoutes from './routes/sim.ts';
import traceRoutes from './routes/trace.ts';
import traceStream from './routes/trace-stream.ts';
import web from './routes/web.ts';
import type { SimControl } from './sim-control.ts';

export interface HttpOptions extends ContextOptions {
  webRoot?: string;
  examples?: Example[];
  logger?: FastifyServerOptions['logger'];
  /** Where container logs are; default the engine's configuration.podLogsDirectory. */
  podLogsDirectory?: string;
  /** The simulated node's controls; absent on a real runtime (the /api/v1/sim writes then answer 404). */
  sim?: SimControl;
  /** Made by buildApp before the engine starts so no event is missed; otherwise made here. */
  metrics?: KubeletMetrics;
}

export async function createHttpApp(opts: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: BODY_LIMIT_BYTES });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
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
  await app.register(nodeRoutes, { examples: opts.examples });
  await app.register(web, { webRoot: opts.webRoot });
  return app;
}
