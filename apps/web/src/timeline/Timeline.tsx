/**
 * One pod's timeline: time runs left to right (d3 scaleTime over the visible window, axis in HH:MM:SS of
 * the engine clock); rows from the top are the pod worker's state band, SyncPod runs, PLEG events, back-off
 * windows, probe results, Events, then one lane per container instance. All positions come from a
 * TimelineLayout (lib/timeline-layout.ts); this file maps them to pixels (./geometry.ts), and
 * ./use-plot-pointer.ts handles the pointer (wheel and pinch zoom around it, a drag selects a range, a drag
 * on the axis pans, a click selects the step of a mark or bar); hover shows a tooltip and reports the
 * mark's seq. Point marks go to a canvas
 * when there are more than CANVAS_THRESHOLD of them, to SVG otherwise. The plot's geometry and visible
 * window are on the element (data-plot-left/right, data-view-start/end) for the pixel ↔ time mapping.
 */
import { scaleTime } from 'd3';
import { useMemo, useRef } from 'react';
import type { WakeChain } from '../lib/causality.ts';
import type { DeleteGrace } from '../lib/timeline-grace.ts';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { Axis } from './Axis.tsx';
import { AXIS_H, GUTTER, PAD, ROW_H, rowMid, rowY } from './geometry.ts';
import { FIXED_ROWS, laneLabel } from './hit.ts';
import { MarksCanvas, pointMarks } from './MarksCanvas.tsx';
import { Minimap } from './Minimap.tsx';
import { FaultsOverlay, FlowArrows, RestartMarks } from './overlays.tsx';
import './overlays.css';
import { Legend, MarksSvg, Rows } from './rows.tsx';
import { DeleteGraceMark, DifferMarks, RangeOverlay, StepCursor } from './selection.tsx';
import { Tooltip } from './Tooltip.tsx';
import { usePlotPointer } from './use-plot-pointer.ts';
import { useWidth } from './use-width.ts';
import type { TimeWindow } from './viewport.ts';

const CANVAS_THRESHOLD = 2000;

export interface TimelineProps {
  layout: TimelineLayout;
  /** The visible window; null shows the whole history (following the live end). */
  view: TimeWindow | null;
  onView: (w: TimeWindow | null) => void;
  /** The selected step: its time draws the cursor, its seq highlights its mark. */
  cursor: { time: number; seq: number } | null;
  onHover?: (seq: number | null) => void;
  onSelect?: (seq: number) => void;
  /** A click on a bar no single event draws (a worker band, a container run): the time it begins. */
  onSelectTime?: (time: number) => void;
  /** The wake-up chains of the selected step, drawn as flow arrows. */
  flows?: readonly WakeChain[];
  /** The dragged range, and its setter (null clears it). */
  range?: TimeWindow | null;
  onRange?: (r: TimeWindow | null) => void;
  /** Steps where the model's reading differs from the source. */
  differs?: readonly { seq: number; time: number; rule?: string }[];
  /** A deleted pod's grace deadline from its DELETE. */
  grace?: DeleteGrace | null;
  /** Set to the time under the pointer while it is over the plot (null off it). */
  pointerTime?: { current: number | null };
}

const NONE: readonly never[] = [];

export function Timeline({
  layout,
  view,
  onView,
  cursor,
  onHover,
  onSelect,
  onSelectTime,
  flows = NONE,
  range = null,
  onRange,
  differs = NONE,
  grace = null,
  pointerTime,
}: TimelineProps) {
  const [ref, width] = useWidth<HTMLDivElement>(900);
  const svgRef = useRef<SVGSVGElement>(null);
  const bounds = useMemo(
    () => ({ start: layout.start, end: Math.max(layout.end, layout.start + 1000) }),
    [layout.start, layout.end],
  );
  const win = view ?? bounds;
  const right = Math.max(GUTTER + 100, width - 12);
  const x = useMemo(
    () => scaleTime<number, number>().domain([win.start, win.end]).range([GUTTER, right]),
    [win.start, win.end, right],
  );
  const rows = FIXED_ROWS.length + layout.lanes.length;
  const height = rowY(rows) + PAD;
  // on the mark arrays, not the layout: a clock tick (extendToNow) keeps them
  const marks = useMemo(
    () => pointMarks(layout.pleg, layout.probes, layout.events),
    [layout.pleg, layout.probes, layout.events],
  );
  const useCanvas = marks.length > CANVAS_THRESHOLD;
  const { hover, handlers } = usePlotPointer(svgRef, {
    layout,
    rows,
    x,
    win,
    bounds,
    right,
    onView,
    onRange,
    onHover,
    onSelect,
    onSelectTime,
    pointerTime,
  });

  return (
    <div
      ref={ref}
      className="timeline"
      data-testid="timeline"
      data-view={view ? 'zoomed' : 'whole'}
      data-start={layout.start}
      data-end={layout.end}
      data-finished={layout.finished}
      data-view-start={win.start}
      data-view-end={win.end}
      data-plot-left={GUTTER}
      data-plot-right={right}
    >
      <svg ref={svgRef} width={width} height={height} role="img" aria-label="pod timeline" {...handlers}>
        <title>Pod timeline</title>
        <defs>
          <clipPath id="tl-plot">
            <rect x={GUTTER} y={0} width={right - GUTTER} height={height} />
          </clipPath>
        </defs>
        <Axis scale={x} y={AXIS_H - 2} ticks={Math.max(2, Math.floor((right - GUTTER) / 110))} />
        <Rows
          labels={[
            ...FIXED_ROWS.map((r) => ({ key: r, label: r })),
            ...layout.lanes.map((l) => ({ key: l.key, label: laneLabel(l) })),
          ]}
          width={width}
          rowY={rowY}
          rowH={ROW_H}
        />
        <g clipPath="url(#tl-plot)">
          <MarksSvg
            layout={layout}
            x={x}
            rowY={rowY}
            rowH={ROW_H}
            win={win}
            points={!useCanvas}
            selectedSeq={cursor?.seq ?? null}
          />
          <FaultsOverlay faults={layout.faults} x={x} win={win} top={AXIS_H - 4} bottom={height} />
          <FlowArrows chains={flows} x={x} rowMid={rowMid} />
          <RestartMarks restarts={layout.restarts} x={x} win={win} top={AXIS_H - 4} bottom={height} />
          <RangeOverlay range={range} x={x} top={AXIS_H} bottom={height} />
          <DeleteGraceMark grace={grace} x={x} win={win} top={AXIS_H} bottom={height} />
          <DifferMarks differs={differs} x={x} win={win} y={AXIS_H} selectedSeq={cursor?.seq ?? null} />
          <StepCursor cursor={cursor} x={x} win={win} top={AXIS_H - 4} bottom={height} />
        </g>
      </svg>
      {useCanvas && (
        <MarksCanvas
          marks={marks}
          x={x}
          win={win}
          width={width}
          height={height}
          rowY={rowMid}
          left={GUTTER}
          right={right}
        />
      )}
      {hover && <Tooltip hover={hover} width={width} />}
      <Minimap layout={layout} width={width} left={GUTTER} view={win} onView={onView} />
      <Legend />
    </div>
  );
}
