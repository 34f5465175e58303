/**
 * What the timeline draws over its rows: the simulated node's faults (a labelled line, an outage a
 * labelled span across every row), the server's restarts (a labelled line) and the flow arrows of the selected wake-up chains, drawn as Perfetto
 * draws flows: a curve from the cause (PLEG mark, config op or resync) to the worker update it delivered,
 * and on to the start of the SyncPod run that update became. Pure SVG from the props; Timeline places it
 * inside the plot's clip. Test ids: `fault-mark`, `fault-span`, `timeline-restart`, `flow-arrow`
 * (data-from / data-to seqs).
 */
import type { ScaleTime } from 'd3';
import type { WakeChain } from '../lib/causality.ts';
import type { FaultMark } from '../lib/timeline-layout.ts';
import { ROW } from './hit.ts';
import type { TimeWindow } from './viewport.ts';

export function FaultsOverlay({
  faults,
  x,
  win,
  top,
  bottom,
}: {
  faults: readonly FaultMark[];
  x: ScaleTime<number, number>;
  win: TimeWindow;
  top: number;
  bottom: number;
}) {
  return (
    <g className="tl-faults">
      {faults
        .filter((f) => (f.end ?? f.time) >= win.start && f.time <= win.end)
        .map((f, i) => {
          const x0 = x(f.time);
          // labels take turns over three heights so close faults stay readable
          const ly = top + 10 + (i % 3) * 11;
          return f.end !== undefined ? (
            <g key={f.seq} className="tl-fault tl-fault-span" data-testid="fault-span" data-label={f.label}>
              <title>{`${f.label}: ${f.detail}`}</title>
              <rect x={x0} y={top} width={Math.max(2, x(f.end) - x0)} height={bottom - top} />
              <text x={Math.max(x0, x(win.start)) + 3} y={ly}>
                {f.label}
              </text>
            </g>
          ) : (
            <g
              key={f.seq}
              className="tl-fault"
              data-testid="fault-mark"
              data-label={f.label}
              data-select-seq={f.seq}
            >
              <title>{`${f.label}: ${f.detail}`}</title>
              <line x1={x0} x2={x0} y1={top} y2={bottom} />
              <text x={x0 + 3} y={ly}>
                {f.label}
              </text>
            </g>
          );
        })}
    </g>
  );
}

/** The Syncscope server's restarts in the window (`server.start`: the engine adopted the pod). */
export function RestartMarks({
  restarts,
  x,
  win,
  top,
  bottom,
}: {
  restarts: readonly { seq: number; time: number }[];
  x: ScaleTime<number, number>;
  win: TimeWindow;
  top: number;
  bottom: number;
}) {
  return restarts
    .filter((r) => r.time >= win.start && r.time <= win.end)
    .map((r) => (
      <g key={r.seq} className="tl-restart" data-testid="timeline-restart" data-select-seq={r.seq}>
        <line x1={x(r.time)} x2={x(r.time)} y1={top} y2={bottom} />
        <text x={x(r.time) + 3} y={top + 12}>
          server restarted
        </text>
      </g>
    ));
}

interface Point {
  x: number;
  y: number;
  seq: number;
}

/**
 * A flow from a to b: a curve that leaves a and arrives at b horizontally, as Perfetto's do; between two
 * marks at (nearly) the same time, a straight line from row to row, stopping short of b's mark.
 */
function curve(a: Point, b: Point): string {
  const dxAbs = Math.abs(b.x - a.x);
  if (dxAbs < 12) {
    const dir = b.y > a.y ? 1 : -1;
    return `M${a.x},${a.y + 4 * dir} L${b.x},${b.y - 5 * dir}`;
  }
  const dx = dxAbs / 2;
  return `M${a.x},${a.y} C${a.x + dx},${a.y} ${b.x - dx},${b.y} ${b.x - 4},${b.y}`;
}

export function FlowArrows({
  chains,
  x,
  rowMid,
}: {
  chains: readonly WakeChain[];
  x: ScaleTime<number, number>;
  rowMid: (row: number) => number;
}) {
  if (chains.length === 0) return null;
  const legs: { a: Point; b: Point }[] = [];
  for (const c of chains) {
    const causeRow = c.cause.kind === 'pleg' ? ROW.pleg : ROW.updates;
    const update: Point = { x: x(c.update.time), y: rowMid(ROW.updates), seq: c.update.seq };
    if (c.cause.kind !== 'resync')
      legs.push({ a: { x: x(c.cause.time), y: rowMid(causeRow), seq: c.cause.seq }, b: update });
    if (c.run) {
      const run: Point = {
        x: x(c.run.start),
        y: rowMid(ROW.sync),
        seq: c.run.startSeq ?? c.run.resultSeq ?? -1,
      };
      legs.push({ a: update, b: run });
    }
  }
  return (
    <g className="tl-flows">
      <defs>
        <marker
          id="tl-flow-head"
          viewBox="0 0 8 8"
          refX="7"
          refY="4"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0L8,4L0,8Z" className="tl-flow-head" />
        </marker>
      </defs>
      {legs.map(({ a, b }) => (
        <path
          key={`${a.seq}-${b.seq}`}
          className="tl-flow"
          data-testid="flow-arrow"
          data-from={a.seq}
          data-to={b.seq}
          d={curve(a, b)}
          markerEnd="url(#tl-flow-head)"
        />
      ))}
    </g>
  );
}
