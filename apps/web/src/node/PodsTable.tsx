/**
 * The pods table: `kubectl get pods -A` columns, sortable (natural order for names), a namespace filter and
 * a search box, virtualized so 5,000 pods cost what the ~30 rows on screen cost. Keys: `/` focuses the
 * search box from anywhere on the page; ↓ from the box, then ↑ ↓ PageUp PageDown Home End move between rows,
 * Enter opens the pod's page. Per row: "trace" (the pod's page), export (its NDJSON) and delete (after a
 * confirmation with the grace period).
 *
 * The rows are the server's (GET /api/v1/node/rows, kept current by its stream: useNodeRowsStream in
 * PodsPanel), never worked out here from the trace. Costs: an entry (sort keys) per row object, made when
 * a batch brings the row; a batch that changes no sort key keeps the order (keepOrder, O(n)), otherwise one
 * sort; one filter scan per keystroke; only the rendered rows print their strings, once per clock tick.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { type KeyboardEvent, type RefObject, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { deletePod } from '../api/client.ts';
import { downloadTraceExport } from '../api/node-actions.ts';
import { useNode, useNodeRows } from '../api/queries.ts';
import { routeHref } from '../lib/route.ts';
import { useReplay } from '../replay/context.ts';
import { useViewNow } from './connection.ts';
import { DeletePodDialog, type DeleteTarget } from './DeletePodDialog.tsx';
import { PodRow } from './PodRow.tsx';
import {
  DEFAULT_SORT,
  filterEntries,
  keepOrder,
  nextSort,
  type PodEntry,
  rowEntry,
  type SortKey,
  type SortState,
  sortEntries,
} from './pod-rows.ts';
import { useLogCounts } from './use-log-counts.ts';

const ROW_HEIGHT = 30;
const COLUMNS: { key: SortKey; label: string; className?: string }[] = [
  { key: 'namespace', label: 'NAMESPACE', className: 'col-ns' },
  { key: 'name', label: 'NAME', className: 'col-name' },
  { key: 'ready', label: 'READY', className: 'col-ready' },
  { key: 'status', label: 'STATUS', className: 'col-status' },
  { key: 'restarts', label: 'RESTARTS', className: 'col-restarts' },
  { key: 'age', label: 'AGE', className: 'col-age' },
];

const openPod = (namespace: string, name: string) => {
  window.location.hash = routeHref({ view: 'pod', namespace, name });
};

/** `/` anywhere but in a text field focuses `input`, as in k9s and most list UIs. */
function useSlashFocus(input: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      // the element the key went to, also inside a shadow root (the apply editor's): e.target is its host there
      const t = (e.composedPath()[0] ?? e.target) as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [input]);
}

export function PodsTable() {
  const rows = useNodeRows();
  const now = useViewNow();
  const replay = useReplay();
  const node = useNode();
  const [namespace, setNamespace] = useState('');
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<SortState>(DEFAULT_SORT);
  const [active, setActive] = useState(0);
  // bumped by every keyboard move, so the focus effect runs even when the active row stays the same
  const [, setMoves] = useState(0);
  const [confirm, setConfirm] = useState<DeleteTarget | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const scrollRef = useRef<HTMLElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const focusWanted = useRef(false);
  /** until when (performance.now()) a wanted focus is looked for */
  const focusUntil = useRef(0);
  useSlashFocus(searchRef);

  const list = rows.data?.list;
  // a kubelet log: each pod's steps that differ from the model's reading
  const explained = useLogCounts(replay);
  // the entries' sort keys do not depend on the clock: one per row object, kept while the row is
  const entries = useMemo(() => (list ?? []).map(rowEntry), [list]);
  const lastSort = useRef<{ sort: SortState; sorted: PodEntry[] }>({ sort, sorted: [] });
  const sorted = useMemo(() => {
    const prev = lastSort.current;
    const next = (prev.sort === sort && keepOrder(prev.sorted, entries, sort)) || sortEntries(entries, sort);
    lastSort.current = { sort, sorted: next };
    return next;
  }, [entries, sort]);
  const namespaces = useMemo(() => [...new Set(entries.map((r) => r.namespace))].sort(), [entries]);
  const shown = useMemo(() => filterEntries(sorted, namespace, search), [sorted, namespace, search]);
  const shownRef = useRef<PodEntry[]>(shown);
  shownRef.current = shown;
  const current = Math.min(active, Math.max(0, shown.length - 1));

  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
    initialRect: { width: 0, height: 600 },
  });

  // keyboard moves: bring the row into view, then focus it once it is rendered. A far jump (End over 5,000
  // rows) on a busy page can land short of the row: until it is drawn, look again each frame and scroll again
  // when it is still outside the drawn rows, for ten seconds at most (a time, not a count of looks: a page
  // busy with live updates renders for other reasons too, and each render looks)
  const [, setLook] = useState(0);
  useEffect(() => {
    if (!focusWanted.current) return;
    const row = scrollRef.current?.querySelector<HTMLElement>(`tr[data-index="${current}"]`);
    if (row) {
      focusWanted.current = false;
      row.focus({ preventScroll: true });
      return;
    }
    if (performance.now() > focusUntil.current) {
      focusWanted.current = false;
      return;
    }
    const frame = requestAnimationFrame(() => {
      if (!virtualizer.getVirtualItems().some((v) => v.index === current))
        virtualizer.scrollToIndex(current, { align: 'auto' });
      setLook((n) => n + 1);
    });
    return () => cancelAnimationFrame(frame);
  });
  const moveTo = (i: number) => {
    const n = shownRef.current.length;
    if (n === 0) return;
    const next = Math.max(0, Math.min(n - 1, i));
    setActive(next);
    setMoves((m) => m + 1);
    focusWanted.current = true;
    focusUntil.current = performance.now() + 10_000;
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 600) / ROW_HEIGHT) - 1);
  const onRowsKey = (e: KeyboardEvent<HTMLTableSectionElement>) => {
    if (!(e.target instanceof HTMLTableRowElement)) return;
    const moves: Record<string, number> = {
      ArrowDown: current + 1,
      ArrowUp: current - 1,
      PageDown: current + page,
      PageUp: current - page,
      Home: 0,
      End: shown.length - 1,
    };
    if (e.key in moves) {
      e.preventDefault();
      moveTo(moves[e.key] as number);
    } else if (e.key === 'Enter') {
      const r = shown[current];
      if (r) openPod(r.namespace, r.name);
    }
  };

  const onFocusRow = useCallback((i: number) => setActive(i), []);
  const onDelete = useCallback((i: number) => {
    const r = shownRef.current[i];
    if (r) setConfirm({ namespace: r.namespace, name: r.name, graceS: r.graceS });
  }, []);
  const onConfirmDelete = (t: DeleteTarget, graceS: number) => {
    setConfirm(null);
    deletePod(t.namespace, t.name, graceS).then(
      () => setMessage({ ok: true, text: `pod "${t.name}" deleted (grace period ${graceS}s)` }),
      (e: Error) => setMessage({ ok: false, text: e.message }),
    );
  };
  const onExport = useCallback((uid: string, name: string) => {
    downloadTraceExport(`syncscope-trace-${name}.ndjson`, uid).catch((e: Error) =>
      setMessage({ ok: false, text: `trace export of "${name}" failed: ${e.message}` }),
    );
  }, []);

  if (rows.isPending) return <p data-testid="pods-loading">Loading pods…</p>;
  if (rows.isError) return <p className="bad">Could not list pods: {rows.error.message}</p>;
  const canExport = !replay;
  const canDelete = canExport && node.data !== undefined && node.data.observing === undefined;
  const virtual = virtualizer.getVirtualItems();
  const top = virtual[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (virtual[virtual.length - 1]?.end ?? 0);
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
          ref={searchRef}
          type="search"
          placeholder="search name or status  ( / )"
          aria-label="search pods by name or status (press / to focus)"
          aria-keyshortcuts="/"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') {
              e.preventDefault();
              moveTo(0);
            } else if (e.key === 'Enter' && shown[0]) openPod(shown[0].namespace, shown[0].name);
          }}
          data-testid="pod-search"
        />
        <span className="dim sub" aria-live="polite" data-testid="pods-count">
          {shown.length} of {entries.length} pods
        </span>
        {message && (
          <span className={message.ok ? 'ok' : 'bad'} data-testid="delete-result" role="status">
            {message.text}
          </span>
        )}
      </div>
      <section
        ref={scrollRef}
        className="pods-scroll"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
        aria-label={`pods, ${shown.length} shown`}
        data-testid="pods-scroll"
      >
        <table className="pods mono" data-testid="pods-table" aria-rowcount={shown.length + 1}>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th
                  key={c.key}
                  className={c.className}
                  aria-sort={
                    sort.key === c.key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined
                  }
                >
                  <button
                    type="button"
                    className="sort"
                    data-testid={`sort-${c.key}`}
                    onClick={() => setSort((s) => nextSort(s, c.key))}
                  >
                    {c.label}
                    <span aria-hidden="true">
                      {sort.key === c.key ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                </th>
              ))}
              {explained && (
                <th className="col-restarts" title="steps that differ from the model's reading">
                  DIFFERS
                </th>
              )}
              <th className="col-actions">
                <span className="visually-hidden">actions</span>
              </th>
            </tr>
          </thead>
          <tbody onKeyDown={onRowsKey}>
            {shown.length === 0 && (
              <tr>
                <td colSpan={7} data-testid="pods-empty">
                  {entries.length === 0 ? 'No resources found.' : 'No pod matches the filter.'}
                </td>
              </tr>
            )}
            {top > 0 && (
              // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a spacer for the rows not rendered; never focused
              <tr aria-hidden="true" className="spacer" style={{ height: top }} />
            )}
            {virtual.map((v) => {
              const r = shown[v.index] as PodEntry;
              return (
                // keyed by position: a filter or sort change updates the rows' text in place instead of
                // replacing ~40 rows of elements, which keeps a keystroke inside one frame budget
                <PodRow
                  key={v.index}
                  index={v.index}
                  row={r.row}
                  now={now}
                  active={v.index === current}
                  canExport={canExport}
                  canDelete={canDelete}
                  onOpen={openPod}
                  onFocusRow={onFocusRow}
                  onDelete={onDelete}
                  onExport={onExport}
                  {...(explained ? { explained: explained(r.uid) } : {})}
                />
              );
            })}
            {bottom > 0 && (
              // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a spacer for the rows not rendered; never focused
              <tr aria-hidden="true" className="spacer" style={{ height: bottom }} />
            )}
          </tbody>
        </table>
      </section>
      {canDelete && (
        <DeletePodDialog target={confirm} onConfirm={onConfirmDelete} onClose={() => setConfirm(null)} />
      )}
    </>
  );
}
