/**
 * The timeline's pointer, as a profiler's: the wheel zooms around the pointer (a pinch, which arrives as a
 * wheel with ctrlKey, too) and scrolls sideways to pan; a drag across the rows selects a time range, a
 * drag on the axis (or with shift) pans; a click selects the step of the mark or bar under it. The time
 * under the pointer is kept in `pointerTime` for the W/S keys.
 */
import type { ScaleTime } from 'd3';
import { type PointerEvent, type RefObject, useEffect, useRef } from 'react';
import { panWindow, type TimeWindow, timeAt, wheelZoomFactor, zoomWindow } from './viewport.ts';

export interface PlotGeometry {
  left: number;
  right: number;
  axisH: number;
}

interface Drag {
  x0: number;
  t0: number;
  win: TimeWindow;
  mode: 'range' | 'pan';
  moved: boolean;
  /** the step a mark under the pointer stands for (data-select-seq) */
  seq: number | null;
}

export interface PointerHandlers {
  onPointerDown: (e: PointerEvent<SVGSVGElement>) => void;
  onPointerMove: (e: PointerEvent<SVGSVGElement>) => boolean;
  onPointerUp: (e: PointerEvent<SVGSVGElement>) => { click: boolean; seq: number | null };
}

export function useTimelinePointer(
  svgRef: RefObject<SVGSVGElement | null>,
  geo: PlotGeometry,
  x: ScaleTime<number, number>,
  win: TimeWindow,
  bounds: TimeWindow,
  onView: (w: TimeWindow | null) => void,
  onRange: ((r: TimeWindow | null) => void) | undefined,
  pointerTime: { current: number | null } | undefined,
): PointerHandlers {
  // the window as last set here: wheel events come faster than renders, each must build on the last
  const latest = useRef({ win, bounds, geo, onView });
  latest.current = { win, bounds, geo, onView };
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    // a native listener: React's is passive and cannot keep the page from scrolling
    const onWheel = (e: WheelEvent) => {
      const l = latest.current;
      const px = e.clientX - svg.getBoundingClientRect().left;
      if (px < l.geo.left) return;
      e.preventDefault();
      let next: TimeWindow;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY))
        next = panWindow(l.win, (e.shiftKey ? e.deltaY : e.deltaX) / 1000, l.bounds);
      else {
        const focus = timeAt(l.win, px, l.geo.left, l.geo.right);
        next = zoomWindow(l.win, focus, wheelZoomFactor(e.deltaY, e.deltaMode, e.ctrlKey), l.bounds);
      }
      l.win = next;
      l.onView(next);
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => svg.removeEventListener('wheel', onWheel);
  }, [svgRef]);

  const drag = useRef<Drag | null>(null);
  const locate = (e: PointerEvent<SVGSVGElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { px: e.clientX - r.left, py: e.clientY - r.top };
  };
  const clampX = (px: number) => Math.min(Math.max(px, geo.left), geo.right);

  return {
    onPointerDown: (e) => {
      const { px, py } = locate(e);
      if (px < geo.left || e.button !== 0) return;
      const mark = (e.target as Element).closest?.('[data-select-seq]');
      drag.current = {
        x0: px,
        t0: +x.invert(px),
        win,
        mode: py < geo.axisH || e.shiftKey ? 'pan' : 'range',
        moved: false,
        seq: mark ? Number(mark.getAttribute('data-select-seq')) : null,
      };
      e.currentTarget.setPointerCapture?.(e.pointerId);
    },
    onPointerMove: (e) => {
      const { px } = locate(e);
      if (pointerTime) pointerTime.current = px >= geo.left ? +x.invert(px) : null;
      const d = drag.current;
      if (!d) return false;
      if (Math.abs(px - d.x0) > 3) d.moved = true;
      if (!d.moved) return true;
      if (d.mode === 'pan') {
        const dx = px - d.x0;
        onView(panWindow(d.win, -dx / (geo.right - geo.left), bounds));
      } else
        onRange?.({
          start: Math.min(d.t0, +x.invert(clampX(px))),
          end: Math.max(d.t0, +x.invert(clampX(px))),
        });
      return true;
    },
    onPointerUp: (e) => {
      const d = drag.current;
      drag.current = null;
      e.currentTarget.releasePointerCapture?.(e.pointerId);
      return { click: d !== null && !d.moved, seq: d?.seq ?? null };
    },
  };
}
