/**
 * One pod: its kubectl row, phase and containers as the engine reports them, and its timeline built from
 * the pod's whole trace (history from GET /api/v1/trace?podUID=, then live from the stream).
 */
import type { ContainerState, ContainerStatus, Pod } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import { useMemo } from 'react';
import { usePods, usePodTrace } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { layoutPodTimeline } from '../lib/timeline-layout.ts';
import { Timeline } from '../timeline/Timeline.tsx';
import { statusTone } from './NodeView.tsx';

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
      <thead>
        <tr>
          <th>CONTAINER</th>
          <th>IMAGE</th>
          <th>STATE</th>
          <th>LAST STATE</th>
          <th>READY</th>
          <th>RESTARTS</th>
        </tr>
      </thead>
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

function PodTimeline({ podUID, now }: { podUID: string; now: number }) {
  const trace = usePodTrace(podUID);
  const layout = useMemo(
    () => (trace.data ? layoutPodTimeline(trace.data.events, now) : null),
    [trace.data, now],
  );
  if (trace.isError) return <p className="bad">Could not load the trace: {trace.error.message}</p>;
  if (!layout) return <p>Loading trace…</p>;
  return <Timeline layout={layout} />;
}

export function PodView({ namespace, name }: { namespace: string; name: string }) {
  const pods = usePods();
  const now = useEngineNow();
  const pod = pods.data?.items.find(
    (p) => p.metadata.name === name && (p.metadata.namespace ?? 'default') === namespace,
  );

  return (
    <>
      <p>
        <a href="#/">← node</a>
      </p>
      {pods.isPending && <p>Loading…</p>}
      {pods.isSuccess && !pod && (
        <p className="bad">
          pods "{name}" not found in namespace {namespace}
        </p>
      )}
      {pod && (
        <>
          <PodSummary pod={pod} now={now} />
          <section className="panel">
            <h2>Containers</h2>
            <ContainersTable pod={pod} />
          </section>
          <section className="panel">
            <h2>Timeline</h2>
            {pod.metadata.uid ? <PodTimeline podUID={pod.metadata.uid} now={now} /> : <p>No UID yet.</p>}
          </section>
        </>
      )}
    </>
  );
}

function PodSummary({ pod, now }: { pod: Pod; now: number }) {
  const row = printPod(pod, now);
  return (
    <section className="panel pod-summary">
      <h1 className="mono" data-testid="pod-title">
        {row.namespace}/{row.name}
      </h1>
      <dl className="facts">
        <dt>STATUS</dt>
        <dd className={`mono status status-${statusTone(row.status)}`} data-testid="pod-status">
          {row.status}
        </dd>
        <dt>phase</dt>
        <dd className="mono">{pod.status?.phase ?? ''}</dd>
        <dt>READY</dt>
        <dd className="mono">{row.ready}</dd>
        <dt>RESTARTS</dt>
        <dd className="mono">{row.restarts}</dd>
        <dt>AGE</dt>
        <dd className="mono">{row.age}</dd>
        <dt>UID</dt>
        <dd className="mono">{pod.metadata.uid ?? ''}</dd>
      </dl>
      {pod.status?.message && <p className="sub">{pod.status.message}</p>}
    </section>
  );
}
