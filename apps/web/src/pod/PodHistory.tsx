/**
 * A pod's history: the step controls, search and filter, the timeline (zoom/pan window, cursor on the
 * selected step, flow arrows of what the step woke or was woken by, the node's faults, the model's
 * differing steps, a deleted pod's grace deadline, a dragged range and its totals), the linked events table
 * (the chosen kinds, and the selected step whatever its kind), and beside them the pod as it was at the
 * selected step, kept in view while the page scrolls. The steps start at the pod's own first event. The
 * keys are ./use-history-keys.ts's. While a step is pinned, `onAt` reports it (and how to go back to now)
 * so the page can show the pod at that step in place of now.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { ExplainContext } from '../explain/context.ts';
import { chainsOf, wakeChains } from '../lib/causality.ts';
import { type StepState, stepState } from '../lib/step.ts';
import { kindFilter, podSteps, STEP_KINDS, type StepKind, stepKind } from '../lib/step-filter.ts';
import { indexFromTime, matchSteps, nextMatch, parseClock } from '../lib/step-search.ts';
import { withFaults, withFoldedLanes } from '../lib/timeline-fold.ts';
import { deleteGrace } from '../lib/timeline-grace.ts';
import { extendToNow, layoutPodTimeline } from '../lib/timeline-layout.ts';
import { rangeTotals } from '../lib/timeline-range.ts';
import { withReducedWorker } from '../lib/worker-facts.ts';
import { Timeline } from '../timeline/Timeline.tsx';
import { revealTime, type TimeWindow } from '../timeline/viewport.ts';
import { EventsTable } from './EventsTable.tsx';
import { HistorySearch } from './HistorySearch.tsx';
import { RangeTotals } from './RangeTotals.tsx';
import { StepFilters } from './StepFilters.tsx';
import { StepFlow } from './StepFlow.tsx';
import { StepControls, StepPanel } from './StepPanel.tsx';
import { useHistoryKeys } from './use-history-keys.ts';
import { useStep } from './use-step.ts';

/** A pinned step, as the page shows it in place of now. */
export interface AtStep {
  step: StepState;
  /** back to now (live) */
  back: () => void;
}

export function PodHistory({
  events: all,
  now,
  faults = [],
  onAt,
}: {
  events: readonly TraceEvent[];
  now: number;
  /** The node's `sim.fault` events; those within the pod's time are drawn on its timeline. */
  faults?: readonly TraceEvent[];
  onAt?: (at: AtStep | null) => void;
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
  const [range, setRange] = useState<TimeWindow | null>(null);
  const totals = useMemo(
    () => range && rangeTotals(events, layout.workerBands, range.start, range.end),
    [events, layout.workerBands, range],
  );
  const [query, setQuery] = useState('');
  const matches = useMemo(() => matchSteps(events, query, visible), [events, query, visible]);
  const searchBox = useRef<HTMLInputElement>(null);
  const pointerTime = useRef<number | null>(null);
  const explained = useContext(ExplainContext);
  const differs = explained?.differs ?? NO_DIFFERS;
  const grace = useMemo(() => deleteGrace(events), [events]);
  const cursor = step ? { time: step.event.time, seq: step.event.seq } : null;

  // keep the selected step on screen when stepping moves it out of a zoomed window
  const cursorTime = cursor?.time;
  useEffect(() => {
    if (cursorTime === undefined) return;
    setView((v) => (v ? revealTime(v, cursorTime, bounds) : v));
  }, [cursorTime, bounds]);

  const pinned = step && !sel.live ? step : null;
  // a step the user picked is shown whole: the detail scrolls into view if it is not already
  const detail = useRef<HTMLElement>(null);
  const pinnedSeq = pinned?.event.seq;
  useEffect(() => {
    if (pinnedSeq !== undefined) detail.current?.scrollIntoView({ block: 'nearest' });
  }, [pinnedSeq]);
  const last = useRef(sel.last);
  last.current = sel.last;
  const back = useCallback(() => last.current(), []);
  useEffect(() => {
    onAt?.(pinned ? { step: pinned, back } : null);
  }, [onAt, pinned, back]);
  useEffect(() => () => onAt?.(null), [onAt]);

  const searchNext = (dir: 1 | -1) => {
    const i = nextMatch(matches, sel.index, dir);
    if (i === undefined) return false;
    sel.go(i);
    return true;
  };
  const jumpTo = (text: string) => {
    const t = parseClock(text, cursorTime ?? now);
    if (t === null) return false;
    const i = indexFromTime(events, t);
    if (i >= 0) sel.go(i);
    setView((v) => (v ? revealTime(v, t, bounds) : v));
    return true;
  };
  useHistoryKeys({
    sel,
    view,
    bounds,
    cursorTime,
    pointerTime,
    setView,
    focusSearch: () => searchBox.current?.focus(),
    searchNext,
    clearRange: () => setRange(null),
  });

  if (!step) return <p>No trace events for this pod yet.</p>;
  return (
    <>
      <div className="history-bar">
        <StepControls sel={sel} total={events.length} seq={step.event.seq} />
        <HistorySearch
          inputRef={searchBox}
          query={query}
          onQuery={setQuery}
          matches={matches.length}
          current={matches.indexOf(sel.index) + 1}
          onNext={searchNext}
          onJump={jumpTo}
        />
        {view && (
          <button type="button" onClick={() => setView(null)} data-testid="timeline-fit">
            show all
          </button>
        )}
        <StepFilters kinds={kinds} onKinds={setKinds} counts={counts} sel={sel} />
      </div>
      <div className="history-main">
        <div className="history-left">
          <Timeline
            layout={layout}
            view={view}
            onView={setView}
            cursor={cursor}
            onHover={setHovered}
            onSelect={sel.goSeq}
            onSelectTime={(t) => sel.go(indexFromTime(events, t))}
            flows={flows}
            range={range}
            onRange={setRange}
            differs={differs}
            grace={grace}
            pointerTime={pointerTime}
          />
          {totals && (
            <RangeTotals
              totals={totals}
              onZoom={() => setView({ start: totals.start, end: totals.end })}
              onClear={() => setRange(null)}
            />
          )}
          <EventsTable
            events={events}
            visible={visible}
            live={sel.live}
            selectedIndex={sel.index}
            hoveredSeq={hovered}
            view={view}
            onSelect={sel.go}
          />
        </div>
        <aside className="history-detail" aria-label="the selected step" ref={detail}>
          <StepFlow chains={flows} seq={step.event.seq} onGo={sel.goSeq} />
          <StepPanel step={step} />
        </aside>
      </div>
    </>
  );
}

const NO_DIFFERS: readonly { seq: number; time: number }[] = [];
