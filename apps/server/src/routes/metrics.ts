/**
 * GET /metrics: the kubelet's metrics in the Prometheus text format (metrics.ts derives them from the
 * trace). createHttpApp passes the KubeletMetrics buildApp made before the engine started, or makes one
 * that follows the context's trace from now on; the app closes it with itself.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { KubeletMetrics } from '../metrics.ts';

interface MetricsRoutesOptions {
  metrics?: KubeletMetrics;
}

async function metricsRoutes(app: FastifyInstance, opts: MetricsRoutesOptions): Promise<void> {
  const { trace, engine } = app.syncscope;
  const metrics = opts.metrics ?? new KubeletMetrics(trace, engine);
  app.addHook('onClose', async () => metrics.close());
  app.get('/metrics', READ_ROUTE, async (_req, reply) =>
    reply.type(metrics.contentType).send(await metrics.metrics()),
  );
}

export default fp(metricsRoutes, { name: 'syncscope-metrics', dependencies: ['syncscope-context'] });
