/**
 * The Kubernetes API reads (discovery, pods, events, the Node, namespaces) as one plugin: it makes the
 * resourceVersion tracker and the Node object the route files share through `app.kubeApi`, then registers
 * them. Registered by http.ts after the context plugin; the tracker listens to the trace until close.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { SimControl } from '../sim-control.ts';
import accessReview from './access-review.ts';
import discovery from './discovery.ts';
import events from './events.ts';
import execRoutes from './exec.ts';
import type { StreamingRuntime } from './exec-proxy.ts';
import healthz from './healthz.ts';
import namespaces, { type NamespaceRouteOptions } from './namespaces.ts';
import { NodeObject } from './node-object.ts';
import nodes from './nodes.ts';
import openApi from './openapi/routes.ts';
import podReads from './pod-reads.ts';
import portForwardRoutes from './port-forward.ts';
import { ResourceVersions } from './resource-version.ts';

interface KubeApi {
  versions: ResourceVersions;
  node: NodeObject;
  /** When the server started (ms, engine clock): the Node's and `default` namespace's creation time. */
  startedAt: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    kubeApi: KubeApi;
  }
}

interface KubeApiOptions extends NamespaceRouteOptions {
  /** The server's own version, shown in /version's gitCommit. */
  version?: string;
  /** The simulated node's controls, when the node is ours: exec runs there. */
  sim?: SimControl;
  /** A real runtime's streaming calls (exec, port-forward), when the node is not ours. */
  streaming?: StreamingRuntime;
}

async function kubeApi(app: FastifyInstance, opts: KubeApiOptions): Promise<void> {
  const { trace, clock } = app.syncscope;
  const startedAt = clock.now();
  const versions = new ResourceVersions(trace, app.podVersions);
  app.decorate('kubeApi', { versions, node: new NodeObject(startedAt), startedAt });
  app.addHook('onClose', async () => versions.close());
  await app.register(discovery, { version: opts.version ?? '0' });
  await app.register(healthz);
  await app.register(accessReview);
  await app.register(podReads);
  await app.register(events);
  await app.register(nodes);
  await app.register(namespaces, { namespaceFile: opts.namespaceFile });
  await app.register(openApi);
  const exec = opts.sim?.exec?.bind(opts.sim);
  const streams = exec ? { run: exec } : opts.streaming ? { streaming: opts.streaming } : {};
  await app.register(execRoutes, streams);
  await app.register(portForwardRoutes, streams);
}

export default fp(kubeApi, {
  name: 'syncscope-kube-api',
  dependencies: ['syncscope-context', 'syncscope-watch'],
});
