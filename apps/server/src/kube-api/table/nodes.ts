/**
 * The node and namespace printers of `kubectl get nodes` / `kubectl get ns` (pkg/printers/internalversion,
 * printNode and printNamespace): NAME STATUS ROLES AGE VERSION (-o wide: INTERNAL-IP EXTERNAL-IP OS-IMAGE
 * KERNEL-VERSION CONTAINER-RUNTIME), and NAME STATUS AGE.
 */
import { translateTimestampSince } from '@syncscope/core/kubectl';
import type { Namespace } from '../namespace-object.ts';
import type { Node } from '../node-object.ts';
import { AGE_COLUMN, column, NAME_COLUMN, type Printer } from './table.ts';

const NONE = '<none>';
const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';

/** STATUS: Ready / NotReady / Unknown from the Ready condition, ",SchedulingDisabled" when cordoned. */
function nodeStatus(node: Node): string {
  const ready = node.status.conditions.find((c) => c.type === 'Ready');
  const states = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (node.spec.unschedulable) states.push('SchedulingDisabled');
  return states.join(',');
}

/** ROLES: from node-role.kubernetes.io/<role> and kubernetes.io/role labels, <none> without any. */
function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX) && k.length > ROLE_LABEL_PREFIX.length) {
      roles.add(k.slice(ROLE_LABEL_PREFIX.length));
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? NONE : [...roles].sort().join(',');
}

function address(node: Node, type: string): string {
  return node.status.addresses.find((a) => a.type === type)?.address ?? NONE;
}

export const nodePrinter: Printer<Node> = {
  columns: [
    NAME_COLUMN,
    column('Status', 'The status of the node'),
    column('Roles', 'The roles of the node'),
    AGE_COLUMN,
    column('Version', 'Kubelet Version reported by the node.'),
    column('Internal-IP', 'List of addresses reachable to the node.', 1),
    column('External-IP', 'List of addresses reachable to the node.', 1),
    column(
      'OS-Image',
      'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
      1,
    ),
    column(
      'Kernel-Version',
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    column(
      'Container-Runtime',
      'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
      1,
    ),
  ],
  row(node, now) {
    const info = node.status.nodeInfo;
    return {
      cells: [
        node.metadata.name,
        nodeStatus(node),
        nodeRoles(node),
        translateTimestampSince(node.metadata.creationTimestamp, now),
        info.kubeletVersion,
        address(node, 'InternalIP'),
        address(node, 'ExternalIP'),
        info.osImage || '<unknown>',
        info.kernelVersion || '<unknown>',
        info.containerRuntimeVersion || '<unknown>',
      ],
    };
  },
};

export const namespacePrinter: Printer<Namespace> = {
  columns: [NAME_COLUMN, column('Status', 'The status of the namespace'), AGE_COLUMN],
  row(ns, now) {
    return {
      cells: [ns.metadata.name, ns.status.phase, translateTimestampSince(ns.metadata.creationTimestamp, now)],
    };
  },
};
