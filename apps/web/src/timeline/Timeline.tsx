/**
 * One pod's timeline: time runs left to right (d3 scaleTime over the visible window, axis in HH:MM:SS of
 * the engine clock); rows from the top are the pod worker's state band, SyncPod runs, PLEG events, back-off
 * windows, probe results, Events, then one lane per container instance. All positions come from a
 * TimelineLayout (lib/timeline-layout.ts); this file maps them to pixels and handles the pointer: wheel
 * zooms around the pointer, drag pans, hover shows a tooltip and reports the mark's seq, click selects it.
 * Point marks go to a canvas when there are more than CANVAS_THRESHOLD of them, to SVG otherwise.
 */
import { scaleTime, timeFormat } from 'd3';
import { type PointerEvent, useEffect, useMemo, useRef, useState } from 'react';
import type { WakeChain } from '../lib/causality.ts';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { Axis } from './Axis.tsx';
import { FIXED_ROWS, type Hit, hitTest, laneLabel, ROW } from './hit.ts';
import { MarksCanvas, type PointMark } from './MarksCanvas.tsx';
import { Minimap } from './Minimap.tsx';
import { FaultsOverlay, FlowArrows } from './overlays.tsx';
import './overlays.css';
import { Legend, MarksSvg, Rows } from './rows.tsx';
import { useWidth } from './use-width.ts';
import { panWindow, type TimeWindow, zoomWindow } from './viewport.ts';

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
  /** The wake-up chains of the selected step, drawn as flow arrows. */
  flows?: readonly WakeChain[];
}

/** Top of row `i` (module-level, so it keeps its identity across renders). */
const rowY = (i: number) => AXIS_H + PAD + i * ROW_H;
/** Middle of row `i`, where the canvas draws point marks. */
const rowMid = (i: number) => rowY(i) + ROW_H / 2;

const fmtSec = timeFormat('%H:%M:%S');
const fmtMs = timeFormat('%H:%M:%S.%L');

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

export function Timeline({ layout, view, onView, cursor, onHover, onSelect, flows = [] }: TimelineProps) {
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
  const drag = useRef<{ x0: number; win: TimeWindow; moved: boolean } | null>(null);

  // wheel: zoom around the pointer (a native listener: React's is passive and cannot stop the page scroll)
  const latest = useRef({ x, win, bounds, onView });
  latest.current = { x, win, bounds, onView };
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const onWheel = (e: WheelEvent) => {
      const { x: sx, win: w, bounds: b, onView: set } = latest.current;
      const px = e.clientX - svg.getBoundingClientRect().left;
      if (px < GUTTER) return;
      e.preventDefault();
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) set(panWindow(w, e.deltaX / 1000, b));
      else set(zoomWindow(w, +sx.invert(px), e.deltaY > 0 ? 1.25 : 0.8, b));
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => svg.removeEventListener('wheel', onWheel);
  }, []);

  const locate = (e: PointerEvent<SVGElement>) => {
    const r = (svgRef.current as SVGSVGElement).getBoundingClientRect();
    return { px: e.clientX - r.left, py: e.clientY - r.top };
  };

  const onPointerMove = (e: PointerEvent<SVGElement>) => {
    const { px, py } = locate(e);
    const d = drag.current;
    if (d) {
      const dx = px - d.x0;
      if (Math.abs(dx) > 3) d.moved = true;
      if (d.moved) {
        const dt = (dx / (right - GUTTER)) * (d.win.end - d.win.start);
        onView(panWindow(d.win, -dt / (d.win.end - d.win.start), bounds));
      }
      return;
    }
    const row = Math.floor((py - rowY(0)) / ROW_H);
    const hit =
      px >= GUTTER && row >= 0 && row < rows
        ? hitTest(layout, row, +x.invert(px), (6 * (win.end - win.start)) / (right - GUTTER))
        : null;
    setHover(hit ? { ...hit, px, py } : null);
    onHover?.(hit?.seq ?? null);
  };

  const onPointerUp = (e: PointerEvent<SVGElement>) => {
    const d = drag.current;
    drag.current = null;
    if (d && !d.moved && hover?.seq != null) onSelect?.(hover.seq);
    (e.currentTarget as Element).releasePointerCapture?.(e.pointerId);
  };

  const span = win.end - win.start;
  return (
    <div
      ref={ref}
      className="timeline"
      data-testid="timeline"
      data-view={view ? 'zoomed' : 'whole'}
      data-start={layout.start}
      data-end={layout.end}
      data-finished={layout.finished}
    >
      <svg
        ref={svgRef}
        width={width}
        height={height}
        role="img"
        aria-label="pod timeline"
        className={drag.current?.moved ? 'tl-dragging' : undefined}
        onPointerDown={(e) => {
          const { px } = locate(e);
          if (px < GUTTER) return;
          drag.current = { x0: px, win, moved: false };
          e.currentTarget.setPointerCapture?.(e.pointerId);
        }}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerLeave={() => {
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
        <Axis
          scale={x}
          y={AXIS_H - 2}
          ticks={Math.max(2, Math.floor(width / 110))}
          format={span < 5000 ? fmtMs : fmtSec}
        />
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
              <g key={r.seq} className="tl-restart" data-testid="timeline-restart">
                <line x1={x(r.time)} x2={x(r.time)} y1={AXIS_H - 4} y2={height} />
                <text x={x(r.time) + 3} y={AXIS_H + 8}>
                  server restarted
                </text>
              </g>
            ))}
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
