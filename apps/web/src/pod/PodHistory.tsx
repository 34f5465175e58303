/**
 * A pod's history: the step controls and filter, the timeline (zoom/pan window, cursor on the selected
 * step, flow arrows of what the step woke or was woken by, the node's faults), the pod as it was at that
 * step, and the linked events table. The steps start at the pod's own first event. Keys (while no form
 * field has focus):
 *   ← →  previous / next step of the chosen kinds     Home / End  first step / live     e  next error
 *   shift+← →  pan          + / −  zoom in / out around the selected step (the centre when it is off screen)
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useEffect, useMemo, useRef, useState } from 'react';
import { chainsOf, wakeChains } from '../lib/causality.ts';
import { stepState } from '../lib/step.ts';
import { kindFilter, podSteps, STEP_KINDS, type StepKind, stepKind } from '../lib/step-filter.ts';
import { withFaults, withFoldedLanes } from '../lib/timeline-fold.ts';
import { extendToNow, layoutPodTimeline } from '../lib/timeline-layout.ts';
import { withReducedWorker } from '../lib/worker-facts.ts';
import { Timeline } from '../timeline/Timeline.tsx';
import { keyZoom, panWindow, revealTime, type TimeWindow } from '../timeline/viewport.ts';
import { EventsTable } from './EventsTable.tsx';
import { StepFilters } from './StepFilters.tsx';
import { StepFlow } from './StepFlow.tsx';
import { StepControls, StepPanel } from './StepPanel.tsx';
import { useStep } from './use-step.ts';

/** Whether a key goes to a text field (a checkbox of the step filter keeps the step keys working). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.tagName === 'INPUT') return !/^(checkbox|radio|button|submit)$/.test((el as HTMLInputElement).type);
  return el.isContentEditable || /^(TEXTAREA|SELECT)$/.test(el.tagName);
}

export function PodHistory({
  events: all,
  now,
  faults = [],
}: {
  events: readonly TraceEvent[];
  now: number;
  /** The node's `sim.fault` events; those within the pod's time are drawn on its timeline. */
  faults?: readonly TraceEvent[];
}) {
  const events = useMemo(() => podSteps(all), [all]);
  // laid out once per change of the events; a clock tick only moves the live edge (extendToNow)
  const laidOut = useMemo(
    () => withReducedWorker(withFoldedLanes(layoutPodTimeline(events, 0)), events),
    [events],
  );
  const extended = useMemo(() => extendToNow(laidOut, now), [laidOut, now]);
  const layout = useMemo(() => withFaults(extended, faults), [extended, faults]);
  const bounds = useMemo(
    () => ({ start: layout.start, end: Math.max(layout.end, layout.start + 1000) }),
    [layout.start, layout.end],
  );
  const [kinds, setKinds] = useState<Set<StepKind>>(() => new Set(STEP_KINDS));
  const visible = useMemo(() => kindFilter(kinds), [kinds]);
  const counts = useMemo(() => {
    const c = Object.fromEntries(STEP_KINDS.map((k) => [k, 0])) as Record<StepKind, number>;
    for (const ev of events) c[stepKind(ev)]++;
    return c;
  }, [events]);
  const sel = useStep(events, visible);
  const step = useMemo(() => stepState(events, sel.index), [events, sel.index]);
  const chains = useMemo(() => wakeChains(events), [events]);
  const flows = useMemo(() => (step ? chainsOf(chains, step.event.seq) : []), [chains, step]);
  const [view, setView] = useState<TimeWindow | null>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  const cursor = step ? { time: step.event.time, seq: step.event.seq } : null;

  // keep the selected step on screen when stepping moves it out of a zoomed window
  const cursorTime = cursor?.time;
  useEffect(() => {
    if (cursorTime === undefined) return;
    setView((v) => (v ? revealTime(v, cursorTime, bounds) : v));
  }, [cursorTime, bounds]);

  const keys = useRef({ sel, view, bounds, cursorTime });
  keys.current = { sel, view, bounds, cursorTime };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const { sel: s, view: v, bounds: b, cursorTime: at } = keys.current;
      const w = v ?? b;
      let handled = true;
      if (e.key === 'ArrowLeft' && e.shiftKey) setView(panWindow(w, -0.2, b));
      else if (e.key === 'ArrowRight' && e.shiftKey) setView(panWindow(w, 0.2, b));
      else if (e.key === 'ArrowLeft') s.prev();
      else if (e.key === 'ArrowRight') s.next();
      else if (e.key === 'Home') s.first();
      else if (e.key === 'End') s.last();
      else if (e.key === 'e') s.nextError();
      else if (e.key === '+' || e.key === '=') setView(keyZoom(w, at, 0.5, b));
      else if (e.key === '-' || e.key === '_') setView(keyZoom(w, at, 2, b));
      else handled = false;
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
        <StepFilters kinds={kinds} onKinds={setKinds} counts={counts} sel={sel} />
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
        flows={flows}
      />
      <div className="history-grid">
        <div>
          <StepFlow chains={flows} seq={step.event.seq} onGo={sel.goSeq} />
          <StepPanel step={step} />
        </div>
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
