/**
 * The node page: the runtime and PLEG health from GET /api/v1/node, and the pods table with the columns
 * `kubectl get pods -A` prints (strings from @syncscope/core/api printPod). A row opens the pod's page.
 */
import { printPod } from '@syncscope/core/api';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { usePods } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { routeHref } from '../lib/route.ts';

export function NodeHealth({ node }: { node: NodeInfo | undefined }) {
  if (!node) return <section className="panel node-health">Loading node…</section>;
  const { runtime, pleg } = node;
  return (
    <section className="panel node-health" data-testid="node-health">
      <div>
        <span className="k">node</span> <span className="mono">{node.nodeName}</span>
        {node.simulated && <span className="tag">simulated</span>}
      </div>
      <div>
        <span className="k">runtime</span>{' '}
        <span className="mono">
          {runtime.name} {runtime.version}
        </span>{' '}
        <span className={runtime.ready ? 'ok' : 'bad'}>{runtime.ready ? 'ready' : 'not ready'}</span>
        {runtime.errors.length > 0 && <span className="bad"> {runtime.errors.join('; ')}</span>}
        <div className="sub mono">{runtime.endpoint}</div>
      </div>
      <div>
        <span className="k">PLEG</span> <span className="mono">{pleg.mode}</span>{' '}
        <span className={pleg.healthy ? 'ok' : 'bad'}>{pleg.healthy ? 'healthy' : 'unhealthy'}</span>
        {pleg.message && <div className="sub">{pleg.message}</div>}
      </div>
    </section>
  );
}

export function PodsTable() {
  const pods = usePods();
  const now = useEngineNow();
  if (pods.isPending) return <p>Loading pods…</p>;
  if (pods.isError) return <p className="bad">Could not list pods: {pods.error.message}</p>;
  const rows = pods.data.items.map((p) => printPod(p, now));
  rows.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  const open = (namespace: string, name: string) => {
    window.location.hash = routeHref({ view: 'pod', namespace, name });
  };
  return (
    <table className="pods mono" data-testid="pods-table">
      <thead>
        <tr>
          <th>NAMESPACE</th>
          <th>NAME</th>
          <th>READY</th>
          <th>STATUS</th>
          <th>RESTARTS</th>
          <th>AGE</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={6}>No resources found.</td>
          </tr>
        )}
        {rows.map((r) => (
          <tr
            key={`${r.namespace}/${r.name}`}
            data-testid={`pod-row-${r.name}`}
            className="clickable"
            onClick={() => open(r.namespace, r.name)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') open(r.namespace, r.name);
            }}
            tabIndex={0}
          >
            <td>{r.namespace}</td>
            <td>
              <a href={routeHref({ view: 'pod', namespace: r.namespace, name: r.name })}>{r.name}</a>
            </td>
            <td>{r.ready}</td>
            <td className={`status status-${statusTone(r.status)}`}>{r.status}</td>
            <td>{r.restarts}</td>
            <td>{r.age}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A colour family for a STATUS string: good, pending, bad, done. */
export function statusTone(status: string): 'good' | 'pending' | 'bad' | 'done' {
  if (status === 'Running') return 'good';
  if (status === 'Completed' || status === 'Succeeded') return 'done';
  if (/BackOff|Err|Error|OOMKilled|Failed|ExitCode|Signal|NotReady|Unknown|Evicted/.test(status))
    return 'bad';
  return 'pending';
}

export function NodeView({ node }: { node: NodeInfo | undefined }) {
  return (
    <>
      <NodeHealth node={node} />
      <section className="panel">
        <h2>Pods</h2>
        <PodsTable />
      </section>
    </>
  );
}
