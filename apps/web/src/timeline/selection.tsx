/**
 * What the timeline draws for the user's own marks: the selected step's cursor, the dragged range (shaded,
 * with its span), the steps where the model's reading differs from the source (a red flag on the axis,
 * listed by the explain overlay), and a deleted pod's grace deadline from its DELETE. Every mark that
 * stands for a step carries `data-select-seq`: a click on it selects that step. Test ids:
 * `timeline-cursor`, `timeline-range`, `differ-mark`, `delete-grace`.
 */
import type { ScaleTime } from 'd3';
import { goDuration, localClock } from '../lib/explain.ts';
import type { DeleteGrace } from '../lib/timeline-grace.ts';
import type { TimeWindow } from './viewport.ts';

/** A line at the selected step's time, while it is in the window. */
export function StepCursor({
  cursor,
  x,
  win,
  top,
  bottom,
}: {
  cursor: { time: number } | null;
  x: ScaleTime<number, number>;
  win: TimeWindow;
  top: number;
  bottom: number;
}) {
  if (!cursor || cursor.time < win.start || cursor.time > win.end) return null;
  return (
    <line
      className="tl-cursor"
      data-testid="timeline-cursor"
      x1={x(cursor.time)}
      x2={x(cursor.time)}
      y1={top}
      y2={bottom}
    />
  );
}

export function RangeOverlay({
  range,
  x,
  top,
  bottom,
}: {
  range: TimeWindow | null;
  x: ScaleTime<number, number>;
  top: number;
  bottom: number;
}) {
  if (!range) return null;
  const x0 = x(range.start);
  const x1 = x(range.end);
  return (
    <g className="tl-range" data-testid="timeline-range" data-start={range.start} data-end={range.end}>
      <rect x={Math.min(x0, x1)} y={top} width={Math.max(1, Math.abs(x1 - x0))} height={bottom - top} />
      <line x1={x0} x2={x0} y1={top} y2={bottom} />
      <line x1={x1} x2={x1} y1={top} y2={bottom} />
    </g>
  );
}

export function DifferMarks({
  differs,
  x,
  win,
  y,
  selectedSeq,
}: {
  differs: readonly { seq: number; time: number; rule?: string }[];
  x: ScaleTime<number, number>;
  win: TimeWindow;
  y: number;
  selectedSeq: number | null;
}) {
  return (
    <g className="tl-differs">
      {differs
        .filter((d) => d.time >= win.start && d.time <= win.end)
        .map((d) => (
          <path
            key={d.seq}
            data-testid="differ-mark"
            data-select-seq={d.seq}
            className={d.seq === selectedSeq ? 'tl-differ tl-selected' : 'tl-differ'}
            d={`M${x(d.time) - 5},${y - 9}L${x(d.time) + 5},${y - 9}L${x(d.time)},${y}Z`}
          >
            <title>{`the model differs at ${localClock(d.time)}${d.rule ? ` (${d.rule})` : ''}`}</title>
          </path>
        ))}
    </g>
  );
}

export function DeleteGraceMark({
  grace,
  x,
  win,
  top,
  bottom,
}: {
  grace: DeleteGrace | null;
  x: ScaleTime<number, number>;
  win: TimeWindow;
  top: number;
  bottom: number;
}) {
  if (!grace || grace.deadline < win.start || grace.deadline > win.end) return null;
  const at = x(grace.deadline);
  return (
    <g
      className="tl-grace tl-delete-grace"
      data-testid="delete-grace"
      data-deadline={grace.deadline}
      data-select-seq={grace.seq}
    >
      <line x1={at} x2={at} y1={top} y2={bottom} />
      <text x={at + 3} y={top + 10}>
        {`deadline (grace ${goDuration(grace.gracePeriodS)})`}
      </text>
      <title>
        {`grace deadline ${localClock(grace.deadline)}: deleted at ${localClock(grace.deadline - grace.gracePeriodS * 1000)} with ${goDuration(grace.gracePeriodS)} grace (its deletionTimestamp)`}
      </title>
    </g>
  );
}
