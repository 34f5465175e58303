/**
 * The Kubernetes API reads (discovery, pods, events, the Node, namespaces) as one plugin: it makes the
 * resourceVersion tracker and the Node object the route files share through `app.kubeApi`, then registers
 * them. Registered by http.ts after the context plugin; the tracker listens to the trace until close.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import discovery from './discovery.ts';
import events from './events.ts';
import namespaces from './namespaces.ts';
import { NodeObject } from './node-object.ts';
import nodes from './nodes.ts';
import openApi from './openapi/routes.ts';
import podReads from './pod-reads.ts';
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

interface KubeApiOptions {
  /** The server's own version, shown in /version's gitCommit. */
  version?: string;
}

async function kubeApi(app: FastifyInstance, opts: KubeApiOptions): Promise<void> {
  const { trace, clock } = app.syncscope;
  const startedAt = clock.now();
  const versions = new ResourceVersions(trace, app.podVersions);
  app.decorate('kubeApi', { versions, node: new NodeObject(startedAt), startedAt });
  app.addHook('onClose', async () => versions.close());
  await app.register(discovery, { version: opts.version ?? '0' });
  await app.register(podReads);
  await app.register(events);
  await app.register(nodes);
  await app.register(namespaces);
  await app.register(openApi);
}

export default fp(kubeApi, {
  name: 'syncscope-kube-api',
  dependencies: ['syncscope-context', 'syncscope-watch'],
});
