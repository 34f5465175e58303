/**
 * The whole history in a thin strip (worker bands, syncs, back-off windows) with the timeline's visible
 * window as a d3 brush: dragging or resizing the brush moves the timeline; clearing it shows everything.
 */
import { brushX, type D3BrushEvent, scaleTime, select } from 'd3';
import { useEffect, useMemo, useRef } from 'react';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import type { TimeWindow } from './viewport.ts';

const H = 30;
const CLASS: Record<string, string> = {
  SyncPod: 'tl-worker-sync',
  TerminatingPod: 'tl-worker-terminating',
  TerminatedPod: 'tl-worker-terminated',
};

export function Minimap({
  layout,
  width,
  left,
  view,
  onView,
}: {
  layout: TimelineLayout;
  width: number;
  left: number;
  view: TimeWindow;
  onView: (w: TimeWindow | null) => void;
}) {
  const ref = useRef<SVGGElement>(null);
  const x = useMemo(
    () =>
      scaleTime<number, number>()
        .domain([layout.start, Math.max(layout.end, layout.start + 1000)])
        .range([left, Math.max(left + 50, width - 12)]),
    [layout.start, layout.end, left, width],
  );
  const onViewRef = useRef(onView);
  onViewRef.current = onView;

  const brush = useMemo(
    () =>
      brushX<unknown>()
        .extent([
          [left, 0],
          [Math.max(left + 50, width - 12), H],
        ])
        .on('brush end', (e: D3BrushEvent<unknown>) => {
          if (!e.sourceEvent) return; // moved by us, not by the user
          const sel = e.selection as [number, number] | null;
          if (!sel) onViewRef.current(null);
          else onViewRef.current({ start: +x.invert(sel[0]), end: +x.invert(sel[1]) });
        }),
    [left, width, x],
  );

  useEffect(() => {
    if (!ref.current) return;
    const g = select(ref.current);
    g.call(brush);
    g.call(brush.move, [x(view.start), x(view.end)]);
  }, [brush, x, view.start, view.end]);

  const w = (a: number, b: number) => Math.max(1, x(b) - x(a));
  return (
    <svg className="tl-minimap" width={width} height={H} data-testid="timeline-minimap" aria-label="minimap">
      <title>Whole history</title>
      <text className="tl-label" x={8} y={H / 2} dominantBaseline="central">
        history
      </text>
      {layout.workerBands.map((b) => (
        <rect
          key={`w${b.start}`}
          className={CLASS[b.state] ?? 'tl-worker-finished'}
          x={x(b.start)}
          y={2}
          width={w(b.start, b.end)}
          height={8}
        />
      ))}
      {layout.backoffs.map((b) => (
        <rect
          key={`b${b.seq}`}
          className="tl-backoff"
          x={x(b.start)}
          y={12}
          width={w(b.start, b.end)}
          height={7}
        />
      ))}
      {layout.syncs.map((s) => (
        <rect
          key={`s${s.seq}`}
          className={s.failed ? 'tl-sync-failed' : 'tl-sync'}
          x={x(s.end)}
          y={21}
          width={1.5}
          height={7}
        />
      ))}
      <g ref={ref} className="tl-brush" />
    </svg>
  );
}
