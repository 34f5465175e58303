/**
 * The pod printer of `kubectl get pods` (pkg/printers/internalversion, printPod): NAME READY STATUS RESTARTS
 * AGE, and with -o wide IP NODE NOMINATED NODE READINESS GATES. The STATUS logic (Init:0/1,
 * CrashLoopBackOff, Completed, Terminating, …) is the one the dashboard shows (@syncscope/core/kubectl).
 */
import type { Pod } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/kubectl';
import { AGE_COLUMN, column, NAME_COLUMN, type Printer, type TableRowCondition } from './table.ts';

const NONE = '<none>';

const SUCCEEDED: TableRowCondition[] = [
  { type: 'Completed', status: 'True', message: 'The pod has completed successfully.' },
];
const FAILED: TableRowCondition[] = [{ type: 'Completed', status: 'True', message: 'The pod failed.' }];

/** READINESS GATES: "<true>/<declared>", or <none> when the pod declares none. */
function readinessGates(pod: Pod): string {
  const gates = pod.spec.readinessGates ?? [];
  if (gates.length === 0) return NONE;
  const conditions = pod.status?.conditions ?? [];
  const ready = gates.filter((g) =>
    conditions.some((c) => c.type === g.conditionType && c.status === 'True'),
  ).length;
  return `${ready}/${gates.length}`;
}

export const podPrinter: Printer<Pod> = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'The aggregate status of the containers in this pod.'),
    column(
      'Restarts',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    AGE_COLUMN,
    column('IP', 'podIP address allocated to the pod. Routable at least within the cluster.', 1),
    column('Node', 'NodeName indicates in which node this pod is scheduled.', 1),
    column('Nominated Node', 'nominatedNodeName is set when this pod preempts other pods on the node.', 1),
    column('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
  ],
  row(pod, now) {
    const r = printPod(pod, now);
    const phase = pod.status?.phase;
    const nominated = (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName;
    return {
      cells: [
        r.name,
        r.ready,
        r.status,
        r.restarts,
        r.age,
        pod.status?.podIP || NONE,
        pod.spec.nodeName || NONE,
        nominated || NONE,
        readinessGates(pod),
      ],
      ...(phase === 'Succeeded'
        ? { conditions: SUCCEEDED }
        : phase === 'Failed'
          ? { conditions: FAILED }
          : {}),
    };
  },
};
