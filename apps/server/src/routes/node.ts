/**
 * GET /api/v1/node: the runtime, PLEG health and the engine's constants (Engine.nodeInfo()), and `health`:
 *   when the sync loop, PLEG relist and housekeeping last ran, whether each is stalled, and the server's
 *   event-loop lag (node-health.ts), judged here where they run. The page polls it as its heartbeat.
 * GET /api/v1/examples: the example manifests, for the UI's apply dialog.
 * GET /api/v1/runtime/pods: every pod the runtime has, with `managed` false for what this engine did not create
 *   (it never stops or removes those); for the UI's read-only "not managed" list.
 * GET /healthz: `ok` while the server answers, or `degraded: <why>` (still 200: the server serves, but e.g.
 *   the pod store refuses writes; restarting would not help).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PUBLIC_ROUTE, READ_ROUTE } from '../access.ts';
import { EventLoopLagMonitor } from '../event-loop-lag.ts';
import type { Example } from '../examples.ts';
import { BeatTracker, judgeNodeHealth } from '../node-health.ts';

interface NodeRoutesOptions {
  examples?: Example[];
  health?: () => string | undefined;
}

async function nodeRoutes(app: FastifyInstance, opts: NodeRoutesOptions): Promise<void> {
  const { engine, trace, clock } = app.syncscope;
  const startedAt = clock.now();
  const beats = new BeatTracker(trace, () => clock.now());
  const lag = new EventLoopLagMonitor();
  app.addHook('onClose', async () => {
    beats.stop();
    lag.stop();
  });
  app.get('/api/v1/node', READ_ROUTE, async () => {
    const info = engine.nodeInfo();
    return { ...info, health: judgeNodeHealth(info, beats.beats, lag.read(), Date.now(), startedAt) };
  });
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
