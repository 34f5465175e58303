/**
 * The pod's trace events as a table linked to the timeline: the rows of the visible window (at most
 * MAX_ROWS, around the selected step); clicking a row selects that step, the selected row and the row of
 * the mark under the pointer are highlighted and scrolled into view. Test ids: `events-table`,
 * `event-row-<seq>`.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useEffect, useMemo, useRef } from 'react';
import { describeEvent, localClock } from '../lib/explain.ts';
import { inferredTitle } from '../lib/provenance.ts';
import type { TimeWindow } from '../timeline/viewport.ts';

const MAX_ROWS = 400;

export function EventsTable({
  events,
  selectedIndex,
  hoveredSeq,
  view,
  onSelect,
}: {
  events: readonly TraceEvent[];
  selectedIndex: number;
  hoveredSeq: number | null;
  view: TimeWindow | null;
  onSelect: (index: number) => void;
}) {
  const rows = useMemo(() => {
    let lo = 0;
    let hi = events.length;
    if (view) {
      lo = events.findIndex((e) => e.time >= view.start);
      if (lo < 0) lo = events.length;
      const after = events.findIndex((e) => e.time > view.end);
      hi = after < 0 ? events.length : after;
    }
    if (hi - lo > MAX_ROWS) {
      const centre = Math.min(Math.max(selectedIndex, lo), hi);
      lo = Math.max(lo, Math.min(centre - MAX_ROWS / 2, hi - MAX_ROWS));
      hi = lo + MAX_ROWS;
    }
    return { lo, items: events.slice(lo, hi) };
  }, [events, view, selectedIndex]);

  const box = useRef<HTMLDivElement>(null);
  const focusSeq = hoveredSeq ?? events[selectedIndex]?.seq;
  useEffect(() => {
    if (focusSeq === undefined) return;
    const row = box.current?.querySelector(`[data-seq="${focusSeq}"]`);
    if (row && box.current) {
      const b = box.current.getBoundingClientRect();
      const r = row.getBoundingClientRect();
      if (r.top < b.top || r.bottom > b.bottom) box.current.scrollTop += r.top - b.top - b.height / 2;
    }
  }, [focusSeq]);

  return (
    // a keyboard user scrolls the box: it takes focus (a <section> would add a landmark per pod view)
    // biome-ignore lint/a11y/useSemanticElements: a scroll box named for screen readers, not a page section
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <div className="events-box" ref={box} role="region" aria-label="trace events of the pod" tabIndex={0}>
      <table className="events-table" data-testid="events-table">
        <thead>
          <tr>
            <th>SEQ</th>
            <th>TIME</th>
            <th>TYPE</th>
            <th>WHAT</th>
          </tr>
        </thead>
        <tbody>
          {rows.items.map((ev, i) => {
            const index = rows.lo + i;
            const cls = [
              index === selectedIndex ? 'row-selected' : '',
              ev.seq === hoveredSeq ? 'row-hover' : '',
              ev.type === 'k8s.event' && ev.eventType === 'Warning' ? 'row-warning' : '',
              ev.type === 'sync.result' && (ev.error || ev.actions.some((a) => a.error)) ? 'row-warning' : '',
            ]
              .filter(Boolean)
              .join(' ');
            return (
              <tr
                key={ev.seq}
                data-seq={ev.seq}
                data-testid={`event-row-${ev.seq}`}
                className={cls || undefined}
                onClick={() => onSelect(index)}
              >
                <td className="mono dim">{ev.seq}</td>
                <td className="mono">{localClock(ev.time)}</td>
                <td className="mono">{ev.type}</td>
                <td
                  className={ev.inferred ? 'fact-inferred' : undefined}
                  title={inferredTitle(ev) ?? undefined}
                >
                  {describeEvent(ev)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
