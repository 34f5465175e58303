/**
 * API discovery, as a client (kubectl, client-go, @kubernetes/client-node) reads it before any request:
 *   GET /api        APIVersions: core v1
 *   GET /api/v1     APIResourceList: pods (po) with pods/log and pods/status, events (ev), nodes (no),
 *                   namespaces (ns). Syncscope's own endpoints under /api/v1 (node, trace, sim, …) are not
 *                   Kubernetes resources and are not listed.
 *   GET /apis       APIGroupList: no group
 *   GET /version    the version of the Kubernetes API the server speaks (the kubelet release it models)
 *   GET /livez, /readyz   `ok`, as the API server's health endpoints (public, as /healthz); /readyz is a 503
 *                   naming the runtime while the kubelet finds it down (the Node is NotReady then)
 * Each of these is also served with the trailing slash some clients add (`/version/`, `/api/v1/`).
 * An aggregated-discovery Accept header gets the plain documents with Content-Type application/json, which
 * clients take as "no aggregated discovery" and read as above. Any other path under /api, /apis, /openapi
 * or /version is a 404 Status (routes/web.ts); the OpenAPI documents are openapi/routes.ts'.
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import { PUBLIC_ROUTE, READ_ROUTE } from '../access.ts';
import { KUBELET_VERSION } from './node-object.ts';

interface ApiResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

/** The verbs of the whole pod API of this server (reads here; writes and watch in their own routes). */
const RESOURCES: readonly ApiResource[] = [
  {
    name: 'events',
    singularName: 'event',
    namespaced: true,
    kind: 'Event',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['ev'],
  },
  {
    name: 'namespaces',
    singularName: 'namespace',
    namespaced: false,
    kind: 'Namespace',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['ns'],
  },
  {
    name: 'nodes',
    singularName: 'node',
    namespaced: false,
    kind: 'Node',
    verbs: ['get', 'list', 'watch'],
    shortNames: ['no'],
  },
  {
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
  },
  { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
  { name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
];

/** Major and minor of the modelled release, e.g. v1.32.10 → 1, 32. */
function versionParts(v: string): { major: string; minor: string } {
  const m = /^v(\d+)\.(\d+)/.exec(v);
  return { major: m?.[1] ?? '1', minor: m?.[2] ?? '0' };
}

async function discovery(app: FastifyInstance, opts: { version: string }): Promise<void> {
  // each with and without the trailing slash some clients add (the Python client's /version/, /api/v1/)
  const both = (path: string, handler: RouteHandlerMethod) => {
    app.get(path, READ_ROUTE, handler);
    app.get(`${path}/`, READ_ROUTE, handler);
  };
  both('/api', async (req) => ({
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: req.host }],
  }));
  both('/api/v1', async () => ({
    kind: 'APIResourceList',
    groupVersion: 'v1',
    resources: RESOURCES,
  }));
  both('/apis', async () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
  both('/version', async () => ({
    ...versionParts(KUBELET_VERSION),
    gitVersion: KUBELET_VERSION,
    gitCommit: `syncscope-${opts.version}`,
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'syncscope',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  }));
  app.get('/livez', PUBLIC_ROUTE, async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
  // Ready while the kubelet finds its runtime up (the Node's Ready condition): a runtime that is down or
  // unreachable is a 503 naming it, in the API server's failed-check format.
  app.get('/readyz', PUBLIC_ROUTE, async (_req, reply) => {
    const { runtime } = app.syncscope.engine.nodeInfo();
    const storage = app.syncscope.engine.storageFailure?.();
    if (storage)
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send(`[-]storage failed: ${storage}\nreadyz check failed\n`);
    if (runtime.ready) return reply.type('text/plain; charset=utf-8').send('ok');
    const name = runtime.endpoint || runtime.name || 'container runtime';
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .send(`[-]runtime ${name} failed: ${runtime.errors.join('; ')}\nreadyz check failed\n`);
  });
}

export default fp(discovery, { name: 'syncscope-kube-discovery' });
