/**
 * One row of the pods table: the server's row (core's pod-state reducer's facts, each with its basis and
 * provenance), its clock-dependent parts printed here, for the rows on screen only, against the page's
 * clock (AGE, RESTARTS' "(… ago)", the newest event and the back-off window in the name's title); the
 * row's "trace" link to the pod's page, its export button and its delete button (which asks first:
 * PodsTable owns the confirmation). A memoized component: a row re-renders when its row object, the clock
 * or its active state changes, never because another row did.
 */

import { humanDuration } from '@syncscope/core/api';
import { memo } from 'react';
import { cellTitle, type PodRowSummary, type RowCell } from '../lib/pod-state-core.ts';
import { routeHref } from '../lib/route.ts';
import { Fact } from '../pod/Fact.tsx';
import { statusTone } from './status-tone.ts';
import type { RowCounts } from './use-log-counts.ts';

export interface PodRowProps {
  index: number;
  row: PodRowSummary;
  now: number;
  active: boolean;
  /** export and delete are offered (live, not a replay) */
  canExport: boolean;
  /** false in observe mode and in a replay: nothing here deletes */
  canDelete: boolean;
  onOpen: (namespace: string, name: string) => void;
  onFocusRow: (index: number) => void;
  onDelete: (index: number) => void;
  onExport: (uid: string, name: string) => void;
  /** a kubelet log's pod: its explanation counts (null: no step of it was read); absent live */
  explained?: RowCounts;
}

export const PodRow = memo(function PodRow(p: PodRowProps) {
  const r = p.row;
  const cell = (c: RowCell) => ({ text: c.text, basis: c.basis, title: cellTitle(c) });
  const ago = (t: number) => `${humanDuration(p.now - t)} ago`;
  // kubectl's RESTARTS: "3 (25s ago)", the time of the newest restarted container's last finish
  const restarts =
    r.restartCount > 0 && r.lastRestartAt !== undefined
      ? { ...r.restarts, text: `${r.restarts.text} (${ago(r.lastRestartAt)})` }
      : r.restarts;
  const backoff =
    r.backoffUntil !== undefined && r.backoffUntil > p.now
      ? `; back-off ends in ${humanDuration(r.backoffUntil - p.now)}`
      : '';
  const about = `${r.namespace}/${r.name}; last event ${ago(r.lastEvent.at)}${r.lastEvent.label ? `: ${r.lastEvent.label}` : ''}${backoff}`;
  const href = routeHref({ view: 'pod', namespace: r.namespace, name: r.name });
  return (
    <tr
      data-testid={`pod-row-${r.name}`}
      data-index={p.index}
      aria-rowindex={p.index + 2}
      className={p.active ? 'clickable active' : 'clickable'}
      onClick={() => p.onOpen(r.namespace, r.name)}
      onFocus={(e) => {
        if (e.target === e.currentTarget) p.onFocusRow(p.index);
      }}
      tabIndex={p.active ? 0 : -1}
    >
      <td title={r.namespace}>{r.namespace}</td>
      <td className="pod-name" title={about}>
        {r.name}
      </td>
      <Fact as="td" className="num" printed={r.ready.text} cell={cell(r.ready)} testid="cell-ready" />
      <Fact
        as="td"
        className={`status status-${statusTone(r.status.text)}`}
        printed={r.status.text}
        cell={cell(r.status)}
        testid="cell-status"
      />
      <Fact as="td" className="num" printed={restarts.text} cell={cell(restarts)} testid="cell-restarts" />
      <td className="num">{humanDuration(p.now - r.created)}</td>
      {p.explained !== undefined && (
        <td
          className={`num${p.explained.counts && p.explained.counts.differs > 0 ? ' bad' : ''}`}
          title={p.explained.title}
          data-testid="cell-differs"
          data-differs={p.explained.counts?.differs ?? ''}
        >
          {p.explained.counts ? p.explained.counts.differs : '—'}
        </td>
      )}
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: only stops the row's click from opening the pod */}
      <td className="row-actions" onClick={(e) => e.stopPropagation()}>
        <a
          className="small"
          href={href}
          data-testid={`trace-${r.name}`}
          aria-label={`trace of ${r.namespace}/${r.name}`}
        >
          trace
        </a>
        {p.canExport && (
          <button
            type="button"
            className="small"
            data-testid={`export-${r.name}`}
            aria-label={`export the trace of ${r.namespace}/${r.name} (NDJSON)`}
            onClick={() => p.onExport(r.uid, r.name)}
          >
            export
          </button>
        )}
        {p.canDelete && (
          <button
            type="button"
            className="small danger"
            data-testid={`delete-${r.name}`}
            aria-label={`delete ${r.namespace}/${r.name}`}
            onClick={() => p.onDelete(p.index)}
          >
            delete
          </button>
        )}
      </td>
    </tr>
  );
});
