/**
 * The pod's trace events as a table linked to the timeline: the rows of the visible window of the kinds
 * the step filter chooses, and the selected step's row whatever its kind (at most MAX_ROWS, around the
 * selected step); clicking a row selects that step, the selected row and the row of
 * the mark under the pointer are highlighted and scrolled into view. Test ids: `events-table`,
 * `event-row-<seq>`.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useEffect, useMemo, useRef } from 'react';
import { describeEvent, localClock } from '../lib/explain.ts';
import { inferredTitle } from '../lib/provenance.ts';
import type { TimeWindow } from '../timeline/viewport.ts';

const MAX_ROWS = 400;
const all = () => true;

export function EventsTable({
  events,
  visible = all,
  live = false,
  selectedIndex,
  hoveredSeq,
  view,
  onSelect,
}: {
  events: readonly TraceEvent[];
  /** the steps of the chosen kinds */
  visible?: (ev: TraceEvent) => boolean;
  /** the selection follows the newest step */
  live?: boolean;
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
    const shown: number[] = [];
    for (let i = lo; i < hi; i++) if (i === selectedIndex || visible(events[i] as TraceEvent)) shown.push(i);
    if (shown.length <= MAX_ROWS) return shown;
    // the MAX_ROWS rows around the selected step (or the nearest shown row after it)
    let at = shown.findIndex((i) => i >= selectedIndex);
    if (at < 0) at = shown.length - 1;
    const from = Math.max(0, Math.min(at - MAX_ROWS / 2, shown.length - MAX_ROWS));
    return shown.slice(from, from + MAX_ROWS);
  }, [events, view, selectedIndex, visible]);

  const box = useRef<HTMLDivElement>(null);
  const focusSeq = hoveredSeq ?? events[selectedIndex]?.seq;
  // live, the newest row stays in view only while the user has not scrolled away from it (as a terminal
  // follows its output): a row being clicked does not move under the pointer as events arrive
  const following = useRef(true);
  const followLive = live && hoveredSeq === null;
  useEffect(() => {
    if (focusSeq === undefined) return;
    if (followLive) {
      if (following.current && box.current) box.current.scrollTop = box.current.scrollHeight;
      return;
    }
    const row = box.current?.querySelector(`[data-seq="${focusSeq}"]`);
    if (row && box.current) {
      const b = box.current.getBoundingClientRect();
      const r = row.getBoundingClientRect();
      if (r.top < b.top || r.bottom > b.bottom) box.current.scrollTop += r.top - b.top - b.height / 2;
    }
  }, [focusSeq, followLive]);

  return (
    // a keyboard user scrolls the box: it takes focus (a <section> would add a landmark per pod view)
    // biome-ignore lint/a11y/useSemanticElements: a scroll box named for screen readers, not a page section
    <div
      className="events-box"
      ref={box}
      role="region"
      aria-label="trace events of the pod"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 24;
      }}
    >
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
          {rows.map((index) => {
            const ev = events[index] as TraceEvent;
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
