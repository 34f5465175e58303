/**
 * The point marks (PLEG, probes, Events) drawn on a canvas laid over the timeline's SVG, for histories
 * with too many marks for one DOM node each. Only the marks inside the visible window are drawn; the
 * canvas takes no pointer events (the SVG below hit-tests through lib code).
 */
import type { ScaleTime } from 'd3';
import { useEffect, useRef } from 'react';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { ROW } from './hit.ts';
import type { TimeWindow } from './viewport.ts';

export interface PointMark {
  row: number;
  time: number;
  seq: number;
  /** pleg-<event>, probe-<result> or event-<type>. */
  cls: string;
  /** a kubelet log implies it without a line for it: drawn hollow and dashed, as the SVG marks are */
  inferred?: boolean;
}

/** The point marks of the PLEG, probes and events rows. */
export function pointMarks(
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

const COLOURS: Record<string, string> = {
  'pleg-ContainerStarted': '#1f7a3a',
  'pleg-ContainerDied': '#c0262d',
  'probe-Success': '#1f7a3a',
  'probe-Failure': '#c0262d',
  'event-Warning': '#c0262d',
};

export function MarksCanvas({
  marks,
  x,
  win,
  width,
  height,
  rowY,
  left,
  right,
}: {
  marks: readonly PointMark[];
  x: ScaleTime<number, number>;
  win: TimeWindow;
  width: number;
  height: number;
  rowY: (row: number) => number;
  left: number;
  right: number;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext('2d');
    if (!canvas || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, 0, right - left, height);
    ctx.clip();
    for (const m of marks) {
      if (m.time < win.start || m.time > win.end) continue;
      const cx = x(m.time);
      const cy = rowY(m.row);
      const colour = COLOURS[m.cls] ?? '#6b4fbb';
      ctx.beginPath();
      ctx.moveTo(cx, cy - 5);
      ctx.lineTo(cx + 4, cy);
      ctx.lineTo(cx, cy + 5);
      ctx.lineTo(cx - 4, cy);
      ctx.closePath();
      if (m.inferred) {
        ctx.strokeStyle = colour;
        ctx.lineWidth = 1.2;
        ctx.setLineDash([2, 1.5]);
        ctx.stroke();
        ctx.setLineDash([]);
      } else {
        ctx.fillStyle = colour;
        ctx.fill();
      }
    }
    ctx.restore();
  }, [marks, x, win.start, win.end, width, height, rowY, left, right]);
  return <canvas ref={ref} className="tl-canvas" data-testid="timeline-canvas" style={{ width, height }} />;
}
