/**
 * The node page of a kubelet-log replay: the lines of this node the parser kept raw (no rule read them),
 * with their line numbers, so nothing the log said is hidden. Pod lines also show in the pod's step-through.
 * Shows the first LIMIT; test ids `raw-lines`, `raw-line`.
 */
import { useMemo } from 'react';
import type { ReplayStore } from '../lib/replay.ts';

const LIMIT = 200;

export function RawLines({ replay }: { replay: ReplayStore }) {
  const raw = useMemo(() => replay.trace.events.filter((ev) => ev.type === 'log.raw'), [replay]);
  return (
    <section className="panel" data-testid="raw-lines">
      <h2>
        Lines kept raw <span className="dim">({raw.length} on this node)</span>
      </h2>
      <div className="raw-lines">
        {raw.slice(0, LIMIT).map((ev) =>
          ev.type === 'log.raw' ? (
            <div key={ev.seq} className="mono raw-line" data-testid="raw-line">
              <span className="dim">{ev.origin?.line ?? ''}</span>{' '}
              {ev.pod && <span className="tag">{ev.pod}</span>}
              {ev.text}
            </div>
          ) : null,
        )}
        {raw.length > LIMIT && (
          <p className="dim">…and {raw.length - LIMIT} more (open a pod to see its own)</p>
        )}
      </div>
    </section>
  );
}
