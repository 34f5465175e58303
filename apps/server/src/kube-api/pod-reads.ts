/**
 * Pods read as the API server serves them (the writes stay in routes/pods.ts):
 *   GET /api/v1/pods[?namespace=]                   PodList of every namespace
 *   GET /api/v1/namespaces/:ns/pods                 PodList
 *   GET /api/v1/namespaces/:ns/pods/:name           Pod, or 404 Status
 *   GET /api/v1/namespaces/:ns/pods/:name/status    the same Pod (the status subresource)
 * Lists take labelSelector, fieldSelector (list-options.ts), limit/continue and resourceVersion; any of
 * them answers a Table when the Accept header asks for one. Every pod carries its resourceVersion
 * (resource-version.ts) and spec.nodeName, the node it runs on: this one.
 *
 * The pod subresources this server knows of but does not serve are answered as Status objects a client can act
 * on rather than the catch-all 404 (exec, attach: exec.ts; portforward: port-forward.ts):
 *   GET|PUT|PATCH …/pods/:name/ephemeralcontainers      404 NotFound with empty details, as an apiserver
 *       without ephemeral containers answers: `kubectl debug` reads the empty details as "ephemeral containers
 *       are disabled for this cluster".
 */
import { Type } from '@sinclair/typebox';
import type { Pod } from '@syncscope/core/api';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { compileQuery, StringQuery } from '../routes/params.ts';
import { sendStatus, status } from '../status.ts';
import type { ListQuery } from './list-options.ts';
import { internalIP } from './node-object.ts';
import type { ResourceVersions } from './resource-version.ts';
import { type ListSpec, notFoundOf, sendList, sendObject } from './respond.ts';
import { podPrinter } from './table/pods.ts';

/** `?namespace=` of the all-namespaces list (the other list parameters are read by sendList). */
const readNamespaceQuery = compileQuery(
  Type.Object({
    namespace: StringQuery(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name'),
  }),
);

/** The fields a pod list can be selected by (the API server's pod field label conversion). */
export const POD_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.nominatedNodeName',
] as const;

export function podField(pod: Pod, field: string): string {
  const spec = pod.spec as Pod['spec'] & { schedulerName?: string; serviceAccountName?: string };
  const st = pod.status as (Pod['status'] & { nominatedNodeName?: string }) | undefined;
  switch (field) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace ?? 'default';
    case 'spec.nodeName':
      return spec.nodeName ?? '';
    case 'spec.restartPolicy':
      return spec.restartPolicy ?? 'Always';
    case 'spec.schedulerName':
      return spec.schedulerName ?? 'default-scheduler';
    case 'spec.serviceAccountName':
      return spec.serviceAccountName ?? '';
    case 'spec.hostNetwork':
      return String(spec.hostNetwork === true);
    case 'status.phase':
      return st?.phase ?? '';
    case 'status.podIP':
      return st?.podIP ?? '';
    case 'status.nominatedNodeName':
      return st?.nominatedNodeName ?? '';
    default:
      return '';
  }
}

const POD_LIST: ListSpec<Pod> = {
  listKind: 'PodList',
  printer: podPrinter,
  fieldLabels: POD_FIELDS,
  fieldOf: podField,
};

let hostIP: string | undefined;

/**
 * The pod bound to this node (spec.nodeName), as every pod this kubelet runs is; a pod with a status has
 * the node's IP as status.hostIP and hostIPs, as the kubelet's generateAPIPodStatus sets them.
 */
export function boundToNode<P extends Pod>(pod: P, nodeName: string): P {
  const st = pod.status;
  const needsIP = st !== undefined && !st.hostIP;
  if (pod.spec.nodeName && !needsIP) return pod;
  if (needsIP && hostIP === undefined) hostIP = internalIP();
  const ip = hostIP ?? '';
  return {
    ...pod,
    spec: pod.spec.nodeName ? pod.spec : { ...pod.spec, nodeName },
    ...(needsIP ? { status: { ...st, hostIP: ip, hostIPs: [{ ip }] } } : {}),
  };
}

/** The pod as the API serves it: its resourceVersion, and bound to this node. */
function kubePod(pod: Pod, nodeName: string, versions: ResourceVersions): Pod {
  const bound = boundToNode(pod, nodeName);
  return { ...bound, metadata: { ...bound.metadata, resourceVersion: versions.pod(pod.metadata.uid ?? '') } };
}

async function podReads(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;
  const { versions } = app.kubeApi;
  const pods = (ns?: string) => {
    const nodeName = engine.nodeInfo().nodeName;
    return engine
      .getPods()
      .filter((p) => !ns || (p.metadata.namespace ?? 'default') === ns)
      .map((p) => kubePod(p, nodeName, versions));
  };

  app.get<{ Querystring: ListQuery & { namespace?: string } }>(
    '/api/v1/pods',
    READ_ROUTE,
    async (req, reply) => {
      const q = readNamespaceQuery(req.query);
      if (q.error) return sendStatus(reply, q.error);
      return sendList(req, reply, POD_LIST, pods(q.value.namespace), versions, clock.now());
    },
  );

  app.get<{ Params: { ns: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns/pods',
    READ_ROUTE,
    async (req, reply) => sendList(req, reply, POD_LIST, pods(req.params.ns), versions, clock.now()),
  );

  const getPod = async (
    req: Parameters<typeof sendObject>[0] & { params: { ns: string; name: string } },
    reply: Parameters<typeof sendObject>[1],
  ) => {
    const pod = engine.getPod(req.params.ns, req.params.name);
    if (!pod) return sendStatus(reply, notFoundOf('pods', req.params.name));
    return sendObject(
      req,
      reply,
      podPrinter,
      kubePod(pod, engine.nodeInfo().nodeName, versions),
      clock.now(),
    );
  };
  app.get<{ Params: { ns: string; name: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns/pods/:name',
    READ_ROUTE,
    getPod,
  );
  app.get<{ Params: { ns: string; name: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns/pods/:name/status',
    READ_ROUTE,
    getPod,
  );

  const noEphemeral = async (_req: unknown, reply: Parameters<typeof sendStatus>[0]) =>
    sendStatus(reply, status(404, 'NotFound', 'the server could not find the requested resource', {}));
  const ephemeral = '/api/v1/namespaces/:ns/pods/:name/ephemeralcontainers';
  app.get(ephemeral, READ_ROUTE, noEphemeral);
  app.put(ephemeral, READ_ROUTE, noEphemeral);
  app.patch(ephemeral, READ_ROUTE, noEphemeral);
}

export default fp(podReads, { name: 'syncscope-pod-reads', dependencies: ['syncscope-context'] });
