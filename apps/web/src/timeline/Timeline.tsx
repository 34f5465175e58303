/**
 * One pod's timeline: time runs left to right (d3 scaleTime over the visible window, axis in HH:MM:SS of
 * the engine clock); rows from the top are the pod worker's state band, SyncPod runs, PLEG events, back-off
 * windows, probe results, Events, then one lane per container instance. All positions come from a
 * TimelineLayout (lib/timeline-layout.ts); this file maps them to pixels, and ./use-pointer.ts handles the
 * pointer (wheel and pinch zoom around it, a drag selects a range, a drag on the axis pans, a click selects
 * the step of a mark or bar); hover shows a tooltip and reports the mark's seq. Point marks go to a canvas
 * when there are more than CANVAS_THRESHOLD of them, to SVG otherwise. The plot's geometry and visible
 * window are on the element (data-plot-left/right, data-view-start/end) for the pixel ↔ time mapping.
 */
import { scaleTime } from 'd3';
import { type PointerEvent, useMemo, useRef, useState } from 'react';
import type { WakeChain } from '../lib/causality.ts';
import type { DeleteGrace } from '../lib/timeline-grace.ts';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { Axis } from './Axis.tsx';
import { FIXED_ROWS, type Hit, hitTest, laneLabel, ROW } from './hit.ts';
import { MarksCanvas, type PointMark } from './MarksCanvas.tsx';
import { Minimap } from './Minimap.tsx';
import { FaultsOverlay, FlowArrows } from './overlays.tsx';
import './overlays.css';
import { Legend, MarksSvg, Rows } from './rows.tsx';
import { DeleteGraceMark, DifferMarks, RangeOverlay } from './selection.tsx';
import { useTimelinePointer } from './use-pointer.ts';
import { useWidth } from './use-width.ts';
import type { TimeWindow } from './viewport.ts';

const GUTTER = 150;
const AXIS_H = 26;
const ROW_H = 22;
const PAD = 4;
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

/** Top of row `i` (module-level, so it keeps its identity across renders). */
const rowY = (i: number) => AXIS_H + PAD + i * ROW_H;
/** Middle of row `i`, where the canvas draws point marks. */
const rowMid = (i: number) => rowY(i) + ROW_H / 2;

function pointMarks(
  pleg: TimelineLayout['pleg'],
  probes: TimelineLayout['probes'],
  events: TimelineLayout['events'],
): PointMark[] {
  return [
    ...pleg.map((p) => ({
      row: ROW.pleg,
      time: p.time,
      seq: p.seq,
      cls: `pleg-${p.event}`,
      ...(p.inferred ? { inferred: true } : {}),
    })),
    ...probes.map((p) => ({ row: ROW.probes, time: p.time, seq: p.seq, cls: `probe-${p.result}` })),
    ...events.map((e) => ({ row: ROW.events, time: e.time, seq: e.seq, cls: `event-${e.eventType}` })),
  ];
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
  const [hover, setHover] = useState<(Hit & { px: number; py: number }) | null>(null);
  const geo = useMemo(() => ({ left: GUTTER, right, axisH: AXIS_H }), [right]);
  const pointer = useTimelinePointer(svgRef, geo, x, win, bounds, onView, onRange, pointerTime);

  const hitAt = (e: PointerEvent<SVGSVGElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const px = e.clientX - r.left;
    const py = e.clientY - r.top;
    const row = Math.floor((py - rowY(0)) / ROW_H);
    const hit =
      px >= GUTTER && row >= 0 && row < rows
        ? hitTest(layout, row, +x.invert(px), (6 * (win.end - win.start)) / (right - GUTTER))
        : null;
    return hit ? { ...hit, px, py } : null;
  };

  const onPointerMove = (e: PointerEvent<SVGSVGElement>) => {
    if (pointer.onPointerMove(e)) return;
    const hit = hitAt(e);
    setHover(hit);
    onHover?.(hit?.seq ?? null);
  };

  const onPointerUp = (e: PointerEvent<SVGSVGElement>) => {
    const { click, seq } = pointer.onPointerUp(e);
    if (!click) return;
    // what is under the pointer now (a hover state may lag a quick click)
    const hit = hitAt(e);
    if (seq !== null) onSelect?.(seq);
    else if (hit?.seq != null) onSelect?.(hit.seq);
    else if (hit?.time !== undefined) onSelectTime?.(hit.time);
    else onRange?.(null);
  };

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
      <svg
        ref={svgRef}
        width={width}
        height={height}
        role="img"
        aria-label="pod timeline"
        onPointerDown={pointer.onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerLeave={() => {
          if (pointerTime) pointerTime.current = null;
          setHover(null);
          onHover?.(null);
        }}
      >
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
          {layout.restarts
            .filter((r) => r.time >= win.start && r.time <= win.end)
            .map((r) => (
              <g key={r.seq} className="tl-restart" data-testid="timeline-restart" data-select-seq={r.seq}>
                <line x1={x(r.time)} x2={x(r.time)} y1={AXIS_H - 4} y2={height} />
                <text x={x(r.time) + 3} y={AXIS_H + 8}>
                  server restarted
                </text>
              </g>
            ))}
          <RangeOverlay range={range} x={x} top={AXIS_H} bottom={height} />
          <DeleteGraceMark grace={grace} x={x} win={win} top={AXIS_H} bottom={height} />
          <DifferMarks differs={differs} x={x} win={win} y={AXIS_H} selectedSeq={cursor?.seq ?? null} />
          {cursor && cursor.time >= win.start && cursor.time <= win.end && (
            <line
              className="tl-cursor"
              data-testid="timeline-cursor"
              x1={x(cursor.time)}
              x2={x(cursor.time)}
              y1={AXIS_H - 4}
              y2={height}
            />
          )}
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
      {hover && (
        <div
          className="tl-tooltip"
          data-testid="timeline-tooltip"
          style={{ left: Math.min(hover.px + 12, width - 260), top: hover.py + 14 }}
        >
          {hover.lines.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines, never reordered
            <div key={i} className={i === 0 ? 'tl-tooltip-head' : undefined}>
              {l}
            </div>
          ))}
        </div>
      )}
      <Minimap layout={layout} width={width} left={GUTTER} view={win} onView={onView} />
      <Legend />
    </div>
  );
}
