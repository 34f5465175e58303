/**
 * The nodes of a kubelet log (`#/nodes`): one row per kubelet the log interleaves, with its name (its host, the
 * name one of its lines gave it, or its process), its pods, its pods in trouble and the time its lines span; and
 * one list of the pods in trouble across every node (back-off, image pulls, failed syncs, failing probes, stuck
 * terminations), searchable by node, pod, STATUS or trouble, newest first, each with its steps that differ from
 * the model's reading (../explain/log-counts.ts). Times are the log's: "last seen" counts back from the log's
 * last line, never from the wall clock.
 *
 * A node's row opens that node's page; a pod's row opens its page on its node. Test ids: `fleet-nodes`,
 * `fleet-node-<key>`, `trouble-table`, `trouble-row-<node>/<ns>/<name>`, `trouble-search`, `trouble-kind`,
 * `trouble-count`, `node-differs`, `cell-differs` (its `data-differs`: the number).
 */
import type { ExplainCounts } from '@syncscope/core/explain';
import { useMemo, useState } from 'react';
import { logExplainCounts, podCounts } from '../explain/log-counts.ts';
import { filterTrouble, type TroublePod } from '../lib/fleet.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { routeHref } from '../lib/route.ts';
import { clockText } from '../node/liveness.ts';
import { logFleet, logReplay, openAt } from './open.ts';
import { beforeEnd, NodeName, TroubleRow } from './TroubleRow.tsx';

const KINDS = [
  { kind: '', label: 'all troubles' },
  { kind: 'back-off', label: 'back-off' },
  { kind: 'image', label: 'image pull' },
  { kind: 'sync', label: 'failed syncs' },
  { kind: 'probe', label: 'probes failing' },
  { kind: 'terminating', label: 'stuck terminating' },
] as const;

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A line's time: hh:mm:ss, with the day when the log's lines span more than one ("May 12 04:58:17") */
function stampOf(t: number, days: boolean): string {
  if (!days) return clockText(t);
  const d = new Date(t);
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')} ${d.getFullYear()} ${clockText(t)}`;
}

/** A node's differing steps, summed over its pods. */
function NodeDiffers({ pods }: { pods: ReadonlyMap<string, ExplainCounts> | undefined }) {
  let differs = 0;
  let of = 0;
  for (const c of pods?.values() ?? []) {
    if (c.differs > 0) of++;
    differs += c.differs;
  }
  return (
    <td
      className={`num${differs > 0 ? ' bad' : ''}`}
      title={`${differs} steps of ${of} pods differ from the model's reading`}
      data-testid="node-differs"
    >
      {differs}
    </td>
  );
}

export function FleetView({
  replay,
  onReplay,
}: {
  replay: ReplayStore;
  onReplay: (store: ReplayStore) => void;
}) {
  const log = replay.log;
  const fleet = useMemo(() => (log ? logFleet(log) : null), [log]);
  const explained = useMemo(() => (log ? logExplainCounts(log.all) : null), [log]);
  const [search, setSearch] = useState('');
  const [kind, setKind] = useState('');
  const shown = useMemo(
    () => (fleet ? filterTrouble(fleet.trouble, search, kind) : []),
    [fleet, search, kind],
  );
  if (!log || !fleet) return null;
  const openNode = (key: string, hash: string) => openAt(hash, logReplay(replay.name, log, key), onReplay);
  const openPod = (t: TroublePod) => {
    const slash = t.pod.pod.indexOf('/');
    const href = routeHref({
      view: 'pod',
      namespace: t.pod.pod.slice(0, slash),
      name: t.pod.pod.slice(slash + 1),
    });
    openNode(t.node.key, href);
  };
  const troubled = fleet.nodes.filter((n) => n.inTrouble > 0).length;
  const first = Math.min(...fleet.nodes.map((n) => n.first));
  const days = fleet.end - first > DAY_MS;
  return (
    <div className="fleet-page">
      <section className="panel" aria-labelledby="fleet-title">
        <h1 id="fleet-title">
          {fleet.nodes.length} {fleet.nodes.length === 1 ? 'node' : 'nodes'} in {replay.name}
        </h1>
        <p className="dim sub">
          {fleet.trouble.length} pods in trouble on {troubled} of them · the log ends at{' '}
          {stampOf(fleet.end, days)}
        </p>
        <table className="fleet mono fleet-nodes" data-testid="fleet-nodes">
          <thead>
            <tr>
              <th>NODE</th>
              <th className="num">PODS</th>
              <th className="num">IN TROUBLE</th>
              <th className="num" title="steps of its pods that differ from the model's reading">
                DIFFERS
              </th>
              <th>FIRST LINE</th>
              <th>LAST LINE</th>
            </tr>
          </thead>
          <tbody>
            {fleet.nodes.map((n) => (
              <tr
                key={n.key}
                className={`clickable${n.key === log.node ? ' active' : ''}`}
                data-testid={`fleet-node-${n.key}`}
                onClick={() => openNode(n.key, '#/')}
              >
                <td>
                  <button
                    type="button"
                    className="fleet-open"
                    onClick={(e) => {
                      e.stopPropagation();
                      openNode(n.key, '#/');
                    }}
                  >
                    <NodeName n={n} />
                  </button>
                </td>
                <td className="num">{n.pods}</td>
                <td className={`num${n.inTrouble > 0 ? ' bad' : ''}`}>{n.inTrouble}</td>
                <NodeDiffers pods={explained?.get(n.key)} />
                <td>{stampOf(n.first, days)}</td>
                <td title={beforeEnd(n.last, fleet.end)}>{stampOf(n.last, days)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel" aria-labelledby="trouble-title">
        <h2 id="trouble-title">Pods in trouble, all nodes</h2>
        <div className="toolbar">
          <select
            value={kind}
            onChange={(e) => setKind(e.target.value)}
            aria-label="kind of trouble"
            data-testid="trouble-kind"
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
          <input
            type="search"
            placeholder="search node, pod, status or trouble"
            aria-label="search the pods in trouble"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="trouble-search"
          />
          <span className="dim sub" aria-live="polite" data-testid="trouble-count">
            {shown.length} of {fleet.trouble.length} pods
          </span>
        </div>
        <table className="fleet mono trouble-table" data-testid="trouble-table">
          <thead>
            <tr>
              <th>NODE</th>
              <th>NAMESPACE</th>
              <th>NAME</th>
              <th>STATUS</th>
              <th className="num">RESTARTS</th>
              <th className="num" title="steps that differ from the model's reading of the kubelet's rules">
                DIFFERS
              </th>
              <th>TROUBLE</th>
              <th>LAST SEEN</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={8} data-testid="trouble-empty">
                  {fleet.trouble.length === 0
                    ? 'No pod in this log is in trouble at its end.'
                    : 'No pod in trouble matches the filter.'}
                </td>
              </tr>
            )}
            {shown.map((t) => (
              <TroubleRow
                key={`${t.node.key}/${t.pod.uid}`}
                t={t}
                end={fleet.end}
                counts={explained ? (podCounts(explained, t.node.key, t.pod.uid) ?? null) : undefined}
                onOpen={openPod}
              />
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
