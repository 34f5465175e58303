/**
 * The plot's pointer as the Timeline wires it: ./use-pointer.ts's zoom, pan and range drag, plus what lies
 * under the pointer (./hit.ts). Hovering shows its tooltip and reports its seq; a click selects the step
 * of the mark pressed (its data-select-seq), else of the mark or bar under the pointer, else clears the
 * range.
 */
import type { ScaleTime } from 'd3';
import { type PointerEvent, type RefObject, useMemo, useState } from 'react';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { AXIS_H, GUTTER, ROW_H, rowY } from './geometry.ts';
import { type Hit, hitTest } from './hit.ts';
import { useTimelinePointer } from './use-pointer.ts';
import type { TimeWindow } from './viewport.ts';

/** A hit and where the pointer is on the plot (px from its top left). */
export type PlotHit = Hit & { px: number; py: number };

export interface PlotPointerOptions {
  layout: TimelineLayout;
  /** rows on the plot: the fixed rows and the lanes */
  rows: number;
  x: ScaleTime<number, number>;
  win: TimeWindow;
  bounds: TimeWindow;
  /** the plot's right edge (px) */
  right: number;
  onView: (w: TimeWindow | null) => void;
  onRange?: (r: TimeWindow | null) => void;
  onHover?: (seq: number | null) => void;
  onSelect?: (seq: number) => void;
  onSelectTime?: (time: number) => void;
  pointerTime?: { current: number | null };
}

type SvgPointer = (e: PointerEvent<SVGSVGElement>) => void;

export function usePlotPointer(
  svgRef: RefObject<SVGSVGElement | null>,
  o: PlotPointerOptions,
): {
  hover: PlotHit | null;
  handlers: {
    onPointerDown: SvgPointer;
    onPointerMove: SvgPointer;
    onPointerUp: SvgPointer;
    onPointerLeave: () => void;
  };
} {
  const { layout, rows, x, win, right, onHover, onSelect, onSelectTime, onRange, pointerTime } = o;
  const [hover, setHover] = useState<PlotHit | null>(null);
  const geo = useMemo(() => ({ left: GUTTER, right, axisH: AXIS_H }), [right]);
  const pointer = useTimelinePointer(svgRef, geo, x, win, o.bounds, o.onView, onRange, pointerTime);

  const hitAt = (e: PointerEvent<SVGSVGElement>): PlotHit | null => {
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

  const onPointerLeave = () => {
    if (pointerTime) pointerTime.current = null;
    setHover(null);
    onHover?.(null);
  };

  return {
    hover,
    handlers: { onPointerDown: pointer.onPointerDown, onPointerMove, onPointerUp, onPointerLeave },
  };
}
