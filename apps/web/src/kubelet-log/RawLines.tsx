/**
 * The node page of a kubelet-log replay: the lines of this node the parser kept raw (no rule read them),
 * with their line numbers, so nothing the log said is hidden, and a search through them (case-insensitive, in
 * the message and the pod it names). They are the log's raw-line records put back in place (the parse worker's,
 * or a shared import's from the server: raw-records.ts, shared.ts). Pod lines also show in the pod's
 * step-through. Shows the first LIMIT; test ids `raw-lines`, `raw-line`, `raw-search`, `raw-count`.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useDeferredValue, useMemo, useState } from 'react';
import type { ReplayStore } from '../lib/replay.ts';

const LIMIT = 200;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

/** the first `limit` raw lines holding `q` and how many do, and how many there are, in one walk */
function firstRaw(
  events: readonly TraceEvent[],
  q: string,
  limit: number,
): { shown: Raw[]; matching: number; total: number } {
  const shown: Raw[] = [];
  let [matching, total] = [0, 0];
  const want = q.toLowerCase();
  for (const ev of events) {
    if (ev.type !== 'log.raw') continue;
    total++;
    if (want !== '' && !ev.text.toLowerCase().includes(want) && !ev.pod?.toLowerCase().includes(want))
      continue;
    if (shown.length < limit) shown.push(ev);
    matching++;
  }
  return { shown, matching, total };
}

export function RawLines({ replay }: { replay: ReplayStore }) {
  const [search, setSearch] = useState('');
  const q = useDeferredValue(search.trim());
  const { shown, matching, total } = useMemo(() => firstRaw(replay.trace.events, q, LIMIT), [replay, q]);
  return (
    <section className="panel" data-testid="raw-lines">
      <h2>
        Lines kept raw <span className="dim">({total} on this node)</span>
      </h2>
      <div className="toolbar">
        <input
          type="search"
          placeholder="search the raw lines"
          aria-label="search the lines kept raw"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="raw-search"
        />
        {q !== '' && (
          <span className="dim sub" aria-live="polite" data-testid="raw-count">
            {matching} of {total} lines
          </span>
        )}
      </div>
      <div className="raw-lines">
        {shown.map((ev) => (
          <div key={ev.seq} className="mono raw-line" data-testid="raw-line">
            <span className="dim">{ev.origin?.line ?? ''}</span>{' '}
            {ev.pod && <span className="tag">{ev.pod}</span>}
            {ev.text}
          </div>
        ))}
        {matching > LIMIT && (
          <p className="dim">
            …and {matching - LIMIT} more ({q === '' ? 'open a pod to see its own' : 'narrow the search'})
          </p>
        )}
      </div>
    </section>
  );
}
