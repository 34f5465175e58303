/**
 * GET /api/v1/node: the runtime, PLEG health and the engine's constants (Engine.nodeInfo()).
 * GET /api/v1/examples: the example manifests, for the UI's apply dialog.
 * GET /healthz: `ok` while the server answers.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Example } from '../examples.ts';

export interface NodeRoutesOptions {
  examples?: Example[];
}

async function nodeRoutes(app: FastifyInstance, opts: NodeRoutesOptions): Promise<void> {
  const { engine } = app.syncscope;
  app.get('/api/v1/node', async () => engine.nodeInfo());
  app.get('/api/v1/examples', async () => ({ items: opts.examples ?? [] }));
  app.get('/healthz', async (_req, reply) => reply.type('text/plain').send('ok'));
}

export default fp(nodeRoutes, { name: 'syncscope-node', dependencies: ['syncscope-context'] });
