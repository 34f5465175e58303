/**
 * The pod page's summary painted from the server's row of the pod (GET /api/v1/node/rows?namespace=&name=)
 * while the pod itself is on its way: the kubectl columns the row carries (STATUS, READY, RESTARTS, AGE),
 * in the same places and under the same test ids as PodSummary, which replaces it once the pod is in.
 */
import { humanDuration } from '@syncscope/core/api';
import type { PodRowSummary } from '../lib/pod-state-core.ts';
import { statusTone } from '../node/status-tone.ts';

export function RowSummary({ row, now }: { row: PodRowSummary; now: number }) {
  // kubectl's RESTARTS: "3 (25s ago)", the time of the newest restarted container's last finish
  const restarts =
    row.restartCount > 0 && row.lastRestartAt !== undefined
      ? `${row.restarts.text} (${humanDuration(now - row.lastRestartAt)} ago)`
      : row.restarts.text;
  return (
    <section className="panel pod-summary" data-testid="pod-row-summary">
      <h1 className="mono" data-testid="pod-title">
        {row.namespace}/{row.name}
      </h1>
      <dl className="facts">
        <dt>STATUS</dt>
        <dd className={`mono status status-${statusTone(row.status.text)}`} data-testid="pod-status">
          {row.status.text}
        </dd>
        <dt>READY</dt>
        <dd className="mono" data-testid="pod-ready">
          {row.ready.text}
        </dd>
        <dt>RESTARTS</dt>
        <dd className="mono" data-testid="pod-restarts">
          {restarts}
        </dd>
        <dt>AGE</dt>
        <dd className="mono">{humanDuration(now - row.created)}</dd>
        <dt>UID</dt>
        <dd className="mono">{row.uid}</dd>
      </dl>
    </section>
  );
}
