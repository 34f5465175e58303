/**
 * The nodes of a kubelet log (`#/nodes`): one row per kubelet the log interleaves, with its name (its host, the
 * name one of its lines gave it, or its process), its pods, its pods in trouble and the time its lines span; and
 * one list of the pods in trouble across every node (back-off, image pulls, failed syncs, failing probes, stuck
 * terminations), searchable by node, pod, STATUS or trouble, newest first. Times are the log's: "last seen"
 * counts back from the log's last line, never from the wall clock.
 *
 * A node's row opens that node's page; a pod's row opens its page on its node. Test ids: `fleet-nodes`,
 * `fleet-node-<key>`, `trouble-table`, `trouble-row-<node>/<ns>/<name>`, `trouble-search`, `trouble-kind`,
 * `trouble-count`.
 */
import { humanDuration } from '@syncscope/core/api';
import { useMemo, useState } from 'react';
import { type FleetNode, filterTrouble, namedByWords, type TroublePod } from '../lib/fleet.ts';
import { factClass } from '../lib/pod-facts.ts';
import { provenance } from '../lib/pod-state-core.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { routeHref } from '../lib/route.ts';
import { clockText } from '../node/liveness.ts';
import { statusTone } from '../node/status-tone.ts';
import { logFleet, logReplay } from './open.ts';

const KINDS = [
  { kind: '', label: 'all troubles' },
  { kind: 'back-off', label: 'back-off' },
  { kind: 'image', label: 'image pull' },
  { kind: 'sync', label: 'failed syncs' },
  { kind: 'probe', label: 'probes failing' },
  { kind: 'terminating', label: 'stuck terminating' },
] as const;

/** a trouble's words are cut after this many characters (a sync error can be a paragraph); its title has all */
const WORDS_SHOWN = 120;

/** "3m12s before the log's end", or "at the log's end" */
function beforeEnd(t: number, end: number): string {
  return end - t < 1000 ? "at the log's end" : `${humanDuration(end - t)} before the log's end`;
}

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A line's time: hh:mm:ss, with the day when the log's lines span more than one ("May 12 04:58:17") */
function stampOf(t: number, days: boolean): string {
  if (!days) return clockText(t);
  const d = new Date(t);
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, '0')} ${d.getFullYear()} ${clockText(t)}`;
}

function NodeName({ n }: { n: FleetNode }) {
  return (
    <span title={namedByWords(n)} data-named-by={n.namedBy}>
      {n.name}
      {n.namedBy === 'line' && <span className="dim"> ({n.key})</span>}
    </span>
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
  const [search, setSearch] = useState('');
  const [kind, setKind] = useState('');
  const shown = useMemo(
    () => (fleet ? filterTrouble(fleet.trouble, search, kind) : []),
    [fleet, search, kind],
  );
  if (!log || !fleet) return null;
  const openNode = (key: string, hash: string) => {
    window.location.hash = hash;
    onReplay(logReplay(replay.name, log, key));
  };
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
              <th>TROUBLE</th>
              <th>LAST SEEN</th>
            </tr>
          </thead>
          <tbody>
            {shown.length === 0 && (
              <tr>
                <td colSpan={7} data-testid="trouble-empty">
                  {fleet.trouble.length === 0
                    ? 'No pod in this log is in trouble at its end.'
                    : 'No pod in trouble matches the filter.'}
                </td>
              </tr>
            )}
            {shown.map((t) => {
              const s = t.pod;
              const slash = s.pod.indexOf('/');
              const word = s.statusWord.basis === 'unknown' ? '—' : s.statusWord.value;
              const restarts =
                s.restarts.basis === 'unknown' ? '—' : `${s.restarts.atLeast ? '≥' : ''}${s.restarts.value}`;
              return (
                <tr
                  key={`${t.node.key}/${s.uid}`}
                  className="clickable"
                  data-testid={`trouble-row-${t.node.key}/${s.pod}`}
                  onClick={() => openPod(t)}
                >
                  <td>
                    <div className="clip">
                      <NodeName n={t.node} />
                    </div>
                  </td>
                  <td>
                    <div className="clip" title={s.pod.slice(0, slash)}>
                      {s.pod.slice(0, slash)}
                    </div>
                  </td>
                  <td className="pod-name">
                    <div className="clip" title={s.pod}>
                      {s.pod.slice(slash + 1)}
                    </div>
                  </td>
                  <td
                    className={`status status-${statusTone(word)} ${factClass(s.statusWord.basis)}`}
                    title={provenance(s.statusWord)}
                    data-basis={s.statusWord.basis}
                  >
                    {word}
                  </td>
                  <td className={`num ${factClass(s.restarts.basis)}`} title={provenance(s.restarts)}>
                    {restarts}
                  </td>
                  <td className="trouble-words">
                    {t.troubles.map((x) => (
                      <span
                        key={`${x.kind}-${x.words}`}
                        className={`trouble trouble-${x.kind}`}
                        title={`${x.words}\nsince ${clockText(x.since)}${x.from?.line !== undefined ? `, line ${x.from.line}` : ''}`}
                      >
                        {x.words.length > WORDS_SHOWN ? `${x.words.slice(0, WORDS_SHOWN)}…` : x.words}
                      </span>
                    ))}
                  </td>
                  <td className="last-seen" title={clockText(s.lastSeen)}>
                    {beforeEnd(s.lastSeen, fleet.end)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
    </div>
  );
}
