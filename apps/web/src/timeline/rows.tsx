/**
 * The timeline's SVG pieces: row backgrounds with labels, the marks of every row (culled to the visible
 * window), and the legend. Test ids: `worker-band`, `lane-<container>`, `mark-<seq>` on point marks.
 */
import type { ScaleTime } from 'd3';
import { INFERRED_STARTED } from '../lib/provenance.ts';
import type { TimelineLayout } from '../lib/timeline-layout.ts';
import { LANES0, ROW } from './hit.ts';
import type { TimeWindow } from './viewport.ts';

const WORKER_CLASS: Record<string, string> = {
  SyncPod: 'tl-worker-sync',
  TerminatingPod: 'tl-worker-terminating',
  TerminatedPod: 'tl-worker-terminated',
  Finished: 'tl-worker-finished',
};

export function Rows({
  labels,
  width,
  rowY,
  rowH,
}: {
  labels: { key: string; label: string }[];
  width: number;
  rowY: (i: number) => number;
  rowH: number;
}) {
  return (
    <>
      {labels.map(({ key, label }, i) => (
        <g key={key} transform={`translate(0,${rowY(i)})`}>
          <rect className={i % 2 ? 'tl-row-odd' : 'tl-row-even'} x={0} y={0} width={width} height={rowH} />
          <text className="tl-label" x={8} y={rowH / 2} dominantBaseline="central">
            {label}
          </text>
        </g>
      ))}
    </>
  );
}

const within = (w: TimeWindow, a: number, b: number) => b >= w.start && a <= w.end;

export function MarksSvg({
  layout,
  x,
  rowY,
  rowH,
  win,
  points,
  selectedSeq,
}: {
  layout: TimelineLayout;
  x: ScaleTime<number, number>;
  rowY: (i: number) => number;
  rowH: number;
  win: TimeWindow;
  /** Draw the point marks (PLEG, probes, Events) here; false when a canvas draws them. */
  points: boolean;
  selectedSeq: number | null;
}) {
  const inner = rowH - 6;
  const w = (a: number, b: number) => Math.max(2, x(b) - x(a));
  const sel = (seq: number) => (seq === selectedSeq ? ' tl-selected' : '');
  const diamond = 'M0,-6L5,0L0,6L-5,0Z';
  return (
    <>
      <g transform={`translate(0,${rowY(ROW.worker) + 3})`} data-testid="worker-band">
        {layout.workerBands
          .filter((b) => within(win, b.start, b.end))
          .map((b) => (
            <rect
              key={`${b.state}-${b.start}`}
              className={`${WORKER_CLASS[b.state] ?? 'tl-worker-finished'}${b.rule ? ' tl-inferred-band' : ''}`}
              data-state={b.state}
              data-inferred={b.rule ? 'true' : undefined}
              x={x(b.start)}
              width={w(b.start, b.end)}
              height={inner}
            >
              <title>{b.rule ? `${b.state} (inferred: ${b.rule})` : b.state}</title>
            </rect>
          ))}
      </g>
      {layout.grace && within(win, layout.grace.deadline, layout.grace.deadline) && (
        <g
          className="tl-grace"
          data-testid="grace-deadline"
          data-select-seq={layout.grace.seq}
          transform={`translate(${x(layout.grace.deadline)},0)`}
        >
          <line y1={rowY(ROW.worker)} y2={rowY(ROW.events) + rowH} />
          <text x={3} y={rowY(ROW.worker) + rowH - 3}>
            grace {layout.grace.gracePeriodS}s
          </text>
          <title>
            {`grace deadline: the kill${layout.grace.line !== undefined ? ` at line ${layout.grace.line}` : ''} plus ${layout.grace.gracePeriodS} s`}
          </title>
        </g>
      )}
      <g transform={`translate(0,${rowY(ROW.updates) + rowH / 2})`}>
        {layout.updates
          .filter((u) => within(win, u.time, u.time))
          .map((u) => (
            <rect
              key={u.seq}
              data-testid={`mark-${u.seq}`}
              className={`tl-update tl-update-${u.kind}${sel(u.seq)}`}
              x={x(u.time) - (u.kind === 'config' ? 4 : 1.5)}
              y={u.kind === 'config' ? -4 : -6}
              width={u.kind === 'config' ? 8 : 3}
              height={u.kind === 'config' ? 8 : 12}
            />
          ))}
      </g>
      <g transform={`translate(0,${rowY(ROW.sync) + 3})`}>
        {layout.syncs
          .filter((s) => within(win, s.start, s.end))
          .map((s) => (
            <rect
              key={s.seq}
              data-testid={`sync-${s.seq}`}
              className={`${s.failed ? 'tl-sync tl-sync-failed' : 'tl-sync'}${sel(s.seq)}`}
              x={x(s.start)}
              width={w(s.start, s.end)}
              height={inner}
            />
          ))}
      </g>
      <g transform={`translate(0,${rowY(ROW.backoff) + 3})`} data-testid="backoff-row">
        {layout.backoffs
          .filter((b) => within(win, b.start, b.end))
          .map((b) => (
            <rect
              key={b.seq}
              data-testid="backoff-box"
              className={`tl-backoff${sel(b.seq)}`}
              x={x(b.start)}
              width={w(b.start, b.end)}
              height={inner}
            />
          ))}
      </g>
      {points && (
        <>
          <g transform={`translate(0,${rowY(ROW.pleg) + rowH / 2})`}>
            {layout.pleg
              .filter((p) => within(win, p.time, p.time))
              .map((p) => (
                <path
                  key={p.seq}
                  data-testid={`mark-${p.seq}`}
                  data-inferred={p.inferred ? 'true' : undefined}
                  className={`tl-pleg tl-pleg-${p.event}${p.inferred ? ' tl-inferred' : ''}${sel(p.seq)}`}
                  transform={`translate(${x(p.time)},0)`}
                  d={diamond}
                >
                  {p.inferred && <title>{`PLEG ${p.event} (${INFERRED_STARTED})`}</title>}
                </path>
              ))}
          </g>
          <g transform={`translate(0,${rowY(ROW.probes) + rowH / 2})`}>
            {layout.probes
              .filter((p) => within(win, p.time, p.time))
              .map((p) => (
                <circle
                  key={p.seq}
                  data-testid={`mark-${p.seq}`}
                  className={`tl-probe tl-probe-${p.result}${sel(p.seq)}`}
                  cx={x(p.time)}
                  r={4}
                />
              ))}
          </g>
          <g transform={`translate(0,${rowY(ROW.events) + rowH / 2})`}>
            {layout.events
              .filter((e) => within(win, e.time, e.time))
              .map((e) => (
                <path
                  key={e.seq}
                  data-testid={`mark-${e.seq}`}
                  className={`tl-event tl-event-${e.eventType}${sel(e.seq)}`}
                  transform={`translate(${x(e.time)},0)`}
                  d="M0,-6L5,5L-5,5Z"
                />
              ))}
          </g>
        </>
      )}
      {layout.lanes.map((lane, i) => (
        <g
          key={lane.key}
          transform={`translate(0,${rowY(LANES0 + i) + 3})`}
          data-testid={`lane-${lane.name}`}
          data-runs={lane.runs?.length}
        >
          {lane.segments
            .filter((seg) => within(win, seg.start, seg.end))
            .map((seg) => (
              <rect
                key={`${seg.kind}-${seg.start}`}
                className={`tl-seg tl-seg-${seg.kind}${seg.kind === 'exited' && lane.exitCode ? ' tl-seg-failed' : ''}`}
                x={x(seg.start)}
                width={w(seg.start, seg.end)}
                height={inner}
              />
            ))}
          {lane.runs
            ?.filter((r) => within(win, r.start, r.start))
            .map((r) => (
              <g
                key={r.start}
                className="tl-run"
                data-testid="lane-run"
                transform={`translate(${x(r.start)},0)`}
              >
                <line y1={-2} y2={inner + 2} />
                {r.end !== null && (
                  <text x={3} y={inner / 2} dominantBaseline="central">
                    {r.error ? '✗' : (r.exitCode ?? '')}
                  </text>
                )}
              </g>
            ))}
          {!lane.runs && lane.finishedAt !== null && within(win, lane.finishedAt, lane.finishedAt) && (
            <text className="tl-exit" x={x(lane.finishedAt) + 4} y={inner / 2} dominantBaseline="central">
              {lane.error ? 'failed' : `exit ${lane.exitCode ?? '?'}${lane.reason ? ` ${lane.reason}` : ''}`}
            </text>
          )}
        </g>
      ))}
    </>
  );
}

export function Legend() {
  const items: [string, string][] = [
    ['tl-worker-sync', 'SyncPod'],
    ['tl-worker-terminating', 'TerminatingPod'],
    ['tl-worker-terminated', 'TerminatedPod'],
    ['tl-seg-created', 'created'],
    ['tl-seg-running', 'running'],
    ['tl-seg-exited', 'exited'],
    ['tl-sync', 'SyncPod run'],
    ['tl-sync-failed', 'sync with errors'],
    ['tl-backoff', 'back-off'],
    ['tl-event-Warning', 'Warning event'],
    ['tl-update-update', 'worker update'],
    ['tl-fault-legend', 'fault'],
  ];
  return (
    <ul className="tl-legend">
      {items.map(([cls, label]) => (
        <li key={label}>
          <svg width={12} height={12} aria-hidden="true">
            <rect className={cls} width={12} height={12} />
          </svg>
          {label}
        </li>
      ))}
      <li className="tl-legend-flow">
        <svg width={22} height={12} aria-hidden="true">
          <path className="tl-flow" d="M1,10 C8,10 12,2 20,2" />
        </svg>
        woke (select a step)
      </li>
      <li className="dim">
        wheel, pinch, W S zoom · A D, drag the axis pan · drag a range · / search, n N · ←→ step
      </li>
    </ul>
  );
}
