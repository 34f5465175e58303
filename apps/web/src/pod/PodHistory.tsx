/**
 * A pod's history: the step controls, the timeline (zoom/pan window, cursor on the selected step), the pod
 * as it was at that step, and the linked events table. Keys (while no form field has focus):
 *   ← →  previous / next step     Home / End  first step / live
 *   shift+← →  pan                + / −  zoom in / out around the centre
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useEffect, useMemo, useRef, useState } from 'react';
import { stepState } from '../lib/step.ts';
import { extendToNow, layoutPodTimeline } from '../lib/timeline-layout.ts';
import { Timeline } from '../timeline/Timeline.tsx';
import { panWindow, revealTime, type TimeWindow, zoomWindow } from '../timeline/viewport.ts';
import { EventsTable } from './EventsTable.tsx';
import { StepControls, StepPanel } from './StepPanel.tsx';
import { useStep } from './use-step.ts';

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));
}

export function PodHistory({ events, now }: { events: readonly TraceEvent[]; now: number }) {
  // laid out once per change of the events; a clock tick only moves the live edge (extendToNow)
  const laidOut = useMemo(() => layoutPodTimeline(events, 0), [events]);
  const layout = useMemo(() => extendToNow(laidOut, now), [laidOut, now]);
  const bounds = useMemo(
    () => ({ start: layout.start, end: Math.max(layout.end, layout.start + 1000) }),
    [layout.start, layout.end],
  );
  const sel = useStep(events);
  const step = useMemo(() => stepState(events, sel.index), [events, sel.index]);
  const [view, setView] = useState<TimeWindow | null>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  const cursor = step ? { time: step.event.time, seq: step.event.seq } : null;

  // keep the selected step on screen when stepping moves it out of a zoomed window
  const cursorTime = cursor?.time;
  useEffect(() => {
    if (cursorTime === undefined) return;
    setView((v) => (v ? revealTime(v, cursorTime, bounds) : v));
  }, [cursorTime, bounds]);

  const keys = useRef({ sel, view, bounds });
  keys.current = { sel, view, bounds };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const { sel: s, view: v, bounds: b } = keys.current;
      const w = v ?? b;
      const mid = (w.start + w.end) / 2;
      let handled = true;
      if (e.key === 'ArrowLeft' && e.shiftKey) setView(panWindow(w, -0.2, b));
      else if (e.key === 'ArrowRight' && e.shiftKey) setView(panWindow(w, 0.2, b));
      else if (e.key === 'ArrowLeft') s.prev();
      else if (e.key === 'ArrowRight') s.next();
      else if (e.key === 'Home') s.first();
      else if (e.key === 'End') s.last();
      else if (e.key === '+' || e.key === '=') setView(zoomWindow(w, mid, 0.5, b));
      else if (e.key === '-' || e.key === '_') {
        const z = zoomWindow(w, mid, 2, b);
        setView(z.start <= b.start && z.end >= b.end ? null : z);
      } else handled = false;
      if (handled) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!step) return <p>No trace events for this pod yet.</p>;
  return (
    <>
      <div className="history-bar">
        <StepControls sel={sel} total={events.length} seq={step.event.seq} />
        {view && (
          <button type="button" onClick={() => setView(null)} data-testid="timeline-fit">
            show all
          </button>
        )}
      </div>
      <Timeline
        layout={layout}
        view={view}
        onView={setView}
        cursor={cursor}
        onHover={setHovered}
        onSelect={sel.goSeq}
      />
      <div className="history-grid">
        <StepPanel step={step} />
        <EventsTable
          events={events}
          selectedIndex={sel.index}
          hoveredSeq={hovered}
          view={view}
          onSelect={sel.go}
        />
      </div>
    </>
  );
}
