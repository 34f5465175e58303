/**
 * Pods the runtime has that this engine did not create (no io.syncscope.managed label): listed read-only, so a
 * user pointing Syncscope at a shared containerd sees them and knows the engine leaves them alone.
 */
import { useQuery } from '@tanstack/react-query';
import { authFetch } from '../api/auth.ts';
import { usePageSettled } from '../hooks/use-page-settled.ts';

interface RuntimePodItem {
  id: string;
  name: string;
  namespace: string;
  managed: boolean;
  sandboxes: { id: string; state: string }[];
  containers: { id: string; name: string; state: string }[];
}

async function getRuntimePods(): Promise<RuntimePodItem[]> {
  const res = await authFetch('/api/v1/runtime/pods');
  if (!res.ok) return [];
  return ((await res.json()) as { items: RuntimePodItem[] }).items;
}

export function ForeignPods() {
  // asked once the page's first screen is in: the runtime's whole pod list is no part of it
  const settled = usePageSettled();
  const { data } = useQuery({
    queryKey: ['runtime-pods'],
    queryFn: getRuntimePods,
    refetchInterval: 5_000,
    enabled: settled,
  });
  const foreign = (data ?? []).filter((p) => !p.managed);
  if (foreign.length === 0) return null;
  return (
    <section className="panel" data-testid="foreign-pods">
      <h2>Not managed by Syncscope (read-only)</h2>
      <p className="hint">
        These sandboxes and containers carry no <code>io.syncscope.managed</code> label. The engine never
        stops or removes them.
      </p>
      <table className="pods">
        <thead>
          <tr>
            <th>NAMESPACE</th>
            <th>NAME</th>
            <th>UID</th>
            <th>SANDBOXES</th>
            <th>CONTAINERS</th>
          </tr>
        </thead>
        <tbody>
          {foreign.map((p) => (
            <tr key={p.id} data-testid={`foreign-${p.name || p.id}`}>
              <td>{p.namespace || '—'}</td>
              <td>{p.name || '—'}</td>
              <td className="mono">{p.id}</td>
              <td>{p.sandboxes.map((s) => s.state).join(', ')}</td>
              <td>{p.containers.map((c) => `${c.name} ${c.state}`).join(', ') || '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
