/**
 * GET /api/v1/node: the runtime, PLEG health and the engine's constants (Engine.nodeInfo()).
 * GET /api/v1/examples: the example manifests, for the UI's apply dialog.
 * GET /api/v1/runtime/pods: every pod the runtime has, with `managed` false for what this engine did not create
 *   (it never stops or removes those); for the UI's read-only "not managed" list.
 * GET /healthz: `ok` while the server answers, or `degraded: <why>` (still 200: the server serves, but e.g.
 *   the pod store refuses writes; restarting would not help).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PUBLIC_ROUTE, READ_ROUTE } from '../access.ts';
import type { Example } from '../examples.ts';

interface NodeRoutesOptions {
  examples?: Example[];
  health?: () => string | undefined;
}

async function nodeRoutes(app: FastifyInstance, opts: NodeRoutesOptions): Promise<void> {
  const { engine } = app.syncscope;
  app.get('/api/v1/node', READ_ROUTE, async () => engine.nodeInfo());
  app.get('/api/v1/examples', READ_ROUTE, async () => ({ items: opts.examples ?? [] }));
  app.get('/api/v1/runtime/pods', READ_ROUTE, async () => {
    const pods = (await engine.listRuntimePods?.()) ?? [];
    return {
      items: pods.map((p) => ({
        id: p.id,
        name: p.name,
        namespace: p.namespace,
        managed: p.managed,
        createdAt: p.createdAt,
        sandboxes: p.sandboxes.map((s) => ({ id: s.id, state: s.state, attempt: s.attempt })),
        containers: p.containers.map((c) => ({ id: c.id, name: c.name, state: c.state, image: c.image })),
      })),
    };
  });
  app.get('/healthz', PUBLIC_ROUTE, async (_req, reply) =>
    reply.type('text/plain').send(opts.health?.() ?? 'ok'),
  );
}

export default fp(nodeRoutes, { name: 'syncscope-node', dependencies: ['syncscope-context'] });
