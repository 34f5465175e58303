/**
 * The pods table: `kubectl get pods -A` columns (strings from printPod), a namespace filter and a search
 * box, and per row a delete button (with the grace period set above the table) and the pod's trace export.
 *
 * Built to stay smooth with hundreds of pods: the rows are printed once per pods-list change or clock tick,
 * and each row is a memoized component with string props, so a batch of status updates re-renders only the
 * rows whose strings changed.
 */
import { printPod } from '@syncscope/core/api';
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import { deletePod } from '../api/client.ts';
import { downloadTraceExport, traceExportUrl } from '../api/node-actions.ts';
import { useNode, usePods } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { routeHref } from '../lib/route.ts';
import { useReplay } from '../replay/context.ts';
import { statusTone } from './status-tone.ts';

interface RowProps {
  namespace: string;
  name: string;
  uid: string;
  ready: string;
  status: string;
  restarts: string;
  age: string;
  actions: boolean;
  /** false in observe mode: the server deletes nothing */
  canDelete: boolean;
  onDelete: (namespace: string, name: string) => void;
  onExport: (uid: string, name: string) => void;
}

const PodRow = memo(function PodRow(p: RowProps) {
  const open = () => {
    window.location.hash = routeHref({ view: 'pod', namespace: p.namespace, name: p.name });
  };
  return (
    <tr
      data-testid={`pod-row-${p.name}`}
      className="clickable"
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === 'Enter' && e.target === e.currentTarget) open();
      }}
      tabIndex={0}
    >
      <td>{p.namespace}</td>
      <td>
        <a href={routeHref({ view: 'pod', namespace: p.namespace, name: p.name })}>{p.name}</a>
      </td>
      <td>{p.ready}</td>
      <td className={`status status-${statusTone(p.status)}`}>{p.status}</td>
      <td>{p.restarts}</td>
      <td>{p.age}</td>
      {p.actions && (
        // biome-ignore lint/a11y/useKeyWithClickEvents: only stops the row's click from opening the pod
        <td className="row-actions" onClick={(e) => e.stopPropagation()}>
          <a
            className="small"
            href={traceExportUrl(p.uid)}
            download={`syncscope-trace-${p.name}.ndjson`}
            data-testid={`export-${p.name}`}
            onClick={(e) => {
              // fetched with the token's header and saved from a Blob: a link cannot carry the header
              e.preventDefault();
              p.onExport(p.uid, p.name);
            }}
          >
            trace
          </a>
          {p.canDelete && (
            <button
              type="button"
              className="small danger"
              data-testid={`delete-${p.name}`}
              onClick={() => p.onDelete(p.namespace, p.name)}
            >
              delete
            </button>
          )}
        </td>
      )}
    </tr>
  );
});

export function PodsTable() {
  const pods = usePods();
  const now = useEngineNow();
  const replay = useReplay();
  const node = useNode();
  const [namespace, setNamespace] = useState('');
  const [search, setSearch] = useState('');
  const [grace, setGrace] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const graceRef = useRef(grace);
  graceRef.current = grace;

  const items = pods.data?.items;
  const rows = useMemo(() => {
    const out = (items ?? []).map((p) => ({ ...printPod(p, now), uid: p.metadata.uid ?? '' }));
    out.sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    return out;
  }, [items, now]);
  const namespaces = useMemo(() => [...new Set(rows.map((r) => r.namespace))].sort(), [rows]);
  const needle = search.trim().toLowerCase();
  const shown = rows.filter(
    (r) =>
      (!namespace || r.namespace === namespace) &&
      (!needle || r.name.toLowerCase().includes(needle) || r.status.toLowerCase().includes(needle)),
  );

  const onDelete = useCallback((ns: string, name: string) => {
    const g = graceRef.current.trim();
    const seconds = g === '' ? undefined : Number(g);
    if (seconds !== undefined && (!Number.isInteger(seconds) || seconds < 0)) {
      setMessage({ ok: false, text: 'grace period must be a whole number of seconds ≥ 0' });
      return;
    }
    deletePod(ns, name, seconds).then(
      () => setMessage({ ok: true, text: `pod "${name}" deleted` }),
      (e: Error) => setMessage({ ok: false, text: e.message }),
    );
  }, []);

  const onExport = useCallback((uid: string, name: string) => {
    downloadTraceExport(`syncscope-trace-${name}.ndjson`, uid).catch((e: Error) =>
      setMessage({ ok: false, text: `trace export of "${name}" failed: ${e.message}` }),
    );
  }, []);

  if (pods.isPending) return <p>Loading pods…</p>;
  if (pods.isError) return <p className="bad">Could not list pods: {pods.error.message}</p>;
  const actions = !replay;
  const canDelete = actions && node.data !== undefined && node.data.observing === undefined;
  return (
    <>
      <div className="toolbar">
        <select
          value={namespace}
          onChange={(e) => setNamespace(e.target.value)}
          data-testid="namespace-filter"
          aria-label="namespace"
        >
          <option value="">all namespaces</option>
          {namespaces.map((ns) => (
            <option key={ns} value={ns}>
              {ns}
            </option>
          ))}
        </select>
        <input
          type="search"
          placeholder="search name or status"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="pod-search"
        />
        <span className="dim sub">
          {shown.length} of {rows.length}
        </span>
        {canDelete && (
          <label className="grace">
            grace period (s){' '}
            <input
              type="number"
              min={0}
              placeholder="pod's"
              value={grace}
              onChange={(e) => setGrace(e.target.value)}
              data-testid="delete-grace"
            />
          </label>
        )}
        {message && (
          <span className={message.ok ? 'ok' : 'bad'} data-testid="delete-result">
            {message.text}
          </span>
        )}
      </div>
      <table className="pods mono" data-testid="pods-table">
        <thead>
          <tr>
            <th>NAMESPACE</th>
            <th>NAME</th>
            <th>READY</th>
            <th>STATUS</th>
            <th>RESTARTS</th>
            <th>AGE</th>
            {actions && <th />}
          </tr>
        </thead>
        <tbody>
          {shown.length === 0 && (
            <tr>
              <td colSpan={actions ? 7 : 6}>No resources found.</td>
            </tr>
          )}
          {shown.map((r) => (
            <PodRow
              key={`${r.namespace}/${r.name}`}
              namespace={r.namespace}
              name={r.name}
              uid={r.uid}
              ready={r.ready}
              status={r.status}
              restarts={r.restarts}
              age={r.age}
              actions={actions}
              canDelete={canDelete}
              onDelete={onDelete}
              onExport={onExport}
            />
          ))}
        </tbody>
      </table>
    </>
  );
}
