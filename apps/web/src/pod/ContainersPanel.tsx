/**
 * The Containers panel of the pod page: each container's state as the pod's status gives it (init and
 * sidecar containers tagged), or as core's pod-state reducer worked it out of a replay (FactContainers,
 * with provenance), then the pod's conditions.
 */
import type { ContainerState, ContainerStatus, Pod } from '@syncscope/core/api';
import type { PodSnapshot } from '../lib/pod-state-core.ts';
import { Columns } from './Columns.tsx';
import { FactContainers } from './FactContainers.tsx';

export function ContainersPanel({ pod, facts }: { pod: Pod; facts: PodSnapshot | undefined }) {
  return (
    <section className="panel">
      <h2>Containers</h2>
      {facts ? <FactContainers facts={facts} /> : <ContainersTable pod={pod} />}
      <Conditions pod={pod} />
    </section>
  );
}

function stateText(state: ContainerState | undefined): string {
  if (!state) return '';
  if (state.running) return 'Running';
  if (state.waiting) return `Waiting${state.waiting.reason ? ` (${state.waiting.reason})` : ''}`;
  if (state.terminated) {
    const t = state.terminated;
    return `Terminated (${t.reason ?? 'exit'} ${t.exitCode})`;
  }
  return '';
}

function ContainersTable({ pod }: { pod: Pod }) {
  const statuses = new Map<string, ContainerStatus>();
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    statuses.set(cs.name, cs);
  }
  const containers = [
    ...(pod.spec.initContainers ?? []).map((c) => ({ c, init: true })),
    ...pod.spec.containers.map((c) => ({ c, init: false })),
  ];
  return (
    <table className="containers">
      <Columns names={['CONTAINER', 'IMAGE', 'STATE', 'LAST STATE', 'READY', 'RESTARTS']} />
      <tbody>
        {containers.map(({ c, init }) => {
          const cs = statuses.get(c.name);
          return (
            <tr key={c.name} data-testid={`container-${c.name}`}>
              <td className="mono">
                {init && <span className="tag">{c.restartPolicy === 'Always' ? 'sidecar' : 'init'}</span>}
                {c.name}
              </td>
              <td className="mono">{c.image}</td>
              <td>{stateText(cs?.state)}</td>
              <td>{stateText(cs?.lastState)}</td>
              <td>{cs ? String(cs.ready) : ''}</td>
              <td>{cs?.restartCount ?? ''}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Conditions({ pod }: { pod: Pod }) {
  const conditions = pod.status?.conditions ?? [];
  if (conditions.length === 0) return null;
  return (
    <p className="conditions" data-testid="pod-conditions">
      {conditions.map((c) => (
        <span
          key={c.type}
          className={c.status === 'True' ? 'cond cond-true' : 'cond'}
          title={[c.reason, c.message].filter(Boolean).join(': ')}
        >
          {c.type}={c.status}
        </span>
      ))}
    </p>
  );
}
