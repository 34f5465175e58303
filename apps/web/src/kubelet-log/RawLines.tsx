/**
 * The node page of a kubelet-log replay: the lines of this node the parser kept raw (no rule read them),
 * with their line numbers, so nothing the log said is hidden. Pod lines also show in the pod's step-through.
 * Shows the first LIMIT; test ids `raw-lines`, `raw-line`.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useMemo } from 'react';
import type { ReplayStore } from '../lib/replay.ts';

const LIMIT = 200;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

/** the first `limit` raw lines and how many there are, in one walk that keeps no list of them all */
function firstRaw(events: readonly TraceEvent[], limit: number): { shown: Raw[]; total: number } {
  const shown: Raw[] = [];
  let total = 0;
  for (const ev of events) {
    if (ev.type !== 'log.raw') continue;
    if (shown.length < limit) shown.push(ev);
    total++;
  }
  return { shown, total };
}

export function RawLines({ replay }: { replay: ReplayStore }) {
  const { shown, total } = useMemo(() => firstRaw(replay.trace.events, LIMIT), [replay]);
  return (
    <section className="panel" data-testid="raw-lines">
      <h2>
        Lines kept raw <span className="dim">({total} on this node)</span>
      </h2>
      <div className="raw-lines">
        {shown.map((ev) => (
          <div key={ev.seq} className="mono raw-line" data-testid="raw-line">
            <span className="dim">{ev.origin?.line ?? ''}</span>{' '}
            {ev.pod && <span className="tag">{ev.pod}</span>}
            {ev.text}
          </div>
        ))}
        {total > LIMIT && <p className="dim">…and {total - LIMIT} more (open a pod to see its own)</p>}
      </div>
    </section>
  );
}
