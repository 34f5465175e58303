/**
 * One row of the pods table: kubectl's strings (printed here, for the rows on screen only, against the
 * page's clock), the row's "trace" link to the pod's page, its export button and its delete button (which
 * asks first: PodsTable owns the confirmation). A memoized component: a row re-renders when its pod, the
 * clock or its active state changes, never because another row did.
 */
import { type Pod, printPod } from '@syncscope/core/api';
import { memo } from 'react';
import { factsOf, rowCells } from '../lib/pod-facts.ts';
import { routeHref } from '../lib/route.ts';
import { Fact } from '../pod/Fact.tsx';
import { statusTone } from './status-tone.ts';

export interface PodRowProps {
  index: number;
  pod: Pod;
  uid: string;
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
}

export const PodRow = memo(function PodRow(p: PodRowProps) {
  const r = printPod(p.pod, p.now);
  // a replay's pod: the reducer's facts (stated, inferred by a named rule, or unknown) instead of printPod's
  const facts = factsOf(p.pod);
  const cells = facts && rowCells(facts);
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
      <td className="pod-name" title={r.name}>
        {r.name}
      </td>
      <Fact as="td" className="num" printed={r.ready} cell={cells?.ready} testid="cell-ready" />
      <Fact
        as="td"
        className={`status status-${statusTone(cells ? cells.status.text : r.status)}`}
        printed={r.status}
        cell={cells?.status}
        testid="cell-status"
      />
      <Fact as="td" className="num" printed={r.restarts} cell={cells?.restarts} testid="cell-restarts" />
      <td className="num">{r.age}</td>
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
            onClick={() => p.onExport(p.uid, r.name)}
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
