/**
 * API discovery, as a client (kubectl, client-go, @kubernetes/client-node) reads it before any request:
 *   GET /api        APIVersions: core v1
 *   GET /api/v1     APIResourceList: pods (po) with pods/log and pods/status, events (ev), nodes (no),
 *                   namespaces (ns). Syncscope's own endpoints under /api/v1 (node, trace, sim, …) are not
 *                   Kubernetes resources and are not listed.
 *   GET /apis       APIGroupList: authorization.k8s.io (v1: the self reviews of access-review.ts), also
 *                   served as its APIGroup and APIResourceList
 *   GET /version    the version of the Kubernetes API the server speaks (the kubelet release it models)
 * Each of these is also served with the trailing slash some clients add (`/version/`, `/api/v1/`).
 * An aggregated-discovery Accept header gets the plain documents with Content-Type application/json, which
 * clients take as "no aggregated discovery" and read as above. Any other path under /api, /apis, /openapi
 * or /version is a 404 Status (routes/web.ts); the OpenAPI documents are openapi/routes.ts'.
 */
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { AUTHORIZATION_GROUP, AUTHORIZATION_RESOURCES } from './access-review.ts';
import { KUBELET_VERSION } from './node-object.ts';

const AUTHORIZATION_VERSION = { groupVersion: `${AUTHORIZATION_GROUP}/v1`, version: 'v1' };

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
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
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
  const authorization = {
    name: AUTHORIZATION_GROUP,
    versions: [AUTHORIZATION_VERSION],
    preferredVersion: AUTHORIZATION_VERSION,
  };
  both('/apis', async () => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [authorization] }));
  both(`/apis/${AUTHORIZATION_GROUP}`, async () => ({
    kind: 'APIGroup',
    apiVersion: 'v1',
    ...authorization,
  }));
  both(`/apis/${AUTHORIZATION_GROUP}/v1`, async () => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: AUTHORIZATION_VERSION.groupVersion,
    resources: AUTHORIZATION_RESOURCES,
  }));
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
}

export default fp(discovery, { name: 'syncscope-kube-discovery' });
