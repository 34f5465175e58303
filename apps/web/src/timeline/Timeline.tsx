/**
 * One pod's timeline as SVG: time runs left to right (d3 scaleTime); rows from the top are the pod
 * worker's state band, SyncPod runs, PLEG events, backoff windows, then one lane per container instance.
 * All positions come from a TimelineLayout (src/lib/timeline-layout.ts); this file only maps to pixels.
 */
import { scaleTime } from 'd3';
import { useMemo } from 'react';
import type { ContainerLane, TimelineLayout } from '../lib/timeline-layout.ts';
import { Axis } from './Axis.tsx';
import { useWidth } from './use-width.ts';

const GUTTER = 150;
const AXIS_H = 26;
const ROW_H = 22;
const PAD = 4;

const WORKER_CLASS: Record<string, string> = {
  SyncPod: 'tl-worker-sync',
  TerminatingPod: 'tl-worker-terminating',
  TerminatedPod: 'tl-worker-terminated',
  Finished: 'tl-worker-finished',
};

function laneLabel(lane: ContainerLane): string {
  const attempt = lane.attempt === null ? '' : ` #${lane.attempt}`;
  return `${lane.init ? 'init:' : ''}${lane.name}${attempt}`;
}

function laneSummary(lane: ContainerLane): string {
  const parts = [laneLabel(lane)];
  if (lane.containerID) parts.push(`id ${lane.containerID.slice(0, 12)}`);
  if (lane.exitCode !== null) parts.push(`exit ${lane.exitCode}${lane.reason ? ` (${lane.reason})` : ''}`);
  if (lane.error) parts.push(lane.error);
  return parts.join(' · ');
}

export function Timeline({ layout }: { layout: TimelineLayout }) {
  const [ref, width] = useWidth<HTMLDivElement>(900);
  const x = useMemo(
    () =>
      scaleTime()
        .domain([new Date(layout.start), new Date(Math.max(layout.end, layout.start + 1000))])
        .range([GUTTER, Math.max(GUTTER + 100, width - 12)]),
    [layout.start, layout.end, width],
  );
  const w = (a: number, b: number) => Math.max(2, x(b) - x(a));
  const rowY = (i: number) => AXIS_H + PAD + i * ROW_H;
  const fixedRows = ['worker', 'sync', 'PLEG', 'backoff'];
  const height = rowY(fixedRows.length + layout.lanes.length) + PAD;
  const inner = ROW_H - 6;

  return (
    <div ref={ref} className="timeline" data-testid="timeline">
      <svg width={width} height={height} role="img" aria-label="pod timeline">
        <title>Pod timeline</title>
        <Axis scale={x} y={AXIS_H - 2} ticks={Math.max(2, Math.floor(width / 110))} />
        {[
          ...fixedRows.map((r) => ({ key: r, label: r })),
          ...layout.lanes.map((l) => ({ key: l.key, label: laneLabel(l) })),
        ].map(({ key, label }, i) => (
          <g key={key} transform={`translate(0,${rowY(i)})`}>
            <rect className={i % 2 ? 'tl-row-odd' : 'tl-row-even'} x={0} y={0} width={width} height={ROW_H} />
            <text className="tl-label" x={8} y={ROW_H / 2} dominantBaseline="central">
              {label}
            </text>
          </g>
        ))}

        <g transform={`translate(0,${rowY(0) + 3})`} data-testid="worker-band">
          {layout.workerBands.map((b) => (
            <rect
              key={`${b.state}-${b.start}`}
              className={WORKER_CLASS[b.state] ?? 'tl-worker-finished'}
              x={x(b.start)}
              width={w(b.start, b.end)}
              height={inner}
            >
              <title>{`${b.state} from ${new Date(b.start).toISOString()}`}</title>
            </rect>
          ))}
        </g>

        <g transform={`translate(0,${rowY(1) + 3})`}>
          {layout.syncs.map((s) => (
            <rect
              key={s.seq}
              className={s.failed ? 'tl-sync tl-sync-failed' : 'tl-sync'}
              x={x(s.start)}
              width={w(s.start, s.end)}
              height={inner}
            >
              <title>
                {[
                  `${s.workType} (${Math.round(s.end - s.start)} ms)${s.error ? `: ${s.error}` : ''}`,
                  ...s.actions.map(
                    (a) =>
                      `${a.action} ${a.target}${a.error ? ` → ${a.error}${a.message ? `: ${a.message}` : ''}` : ''}`,
                  ),
                ].join('\n')}
              </title>
            </rect>
          ))}
        </g>

        <g transform={`translate(0,${rowY(2) + ROW_H / 2})`}>
          {layout.pleg.map((p) => (
            <path
              key={p.seq}
              className={`tl-pleg tl-pleg-${p.event}`}
              transform={`translate(${x(p.time)},0)`}
              d="M0,-6L5,0L0,6L-5,0Z"
            >
              <title>{`${p.event} ${p.containerName ?? ''} ${p.containerID.slice(0, 12)}`}</title>
            </path>
          ))}
        </g>

        <g transform={`translate(0,${rowY(3) + 3})`}>
          {layout.backoffs.map((b) => (
            <rect key={b.seq} className="tl-backoff" x={x(b.start)} width={w(b.start, b.end)} height={inner}>
              <title>{`${b.kind === 'image' ? 'image pull' : 'container'} back-off ${b.delayS}s: ${b.container}`}</title>
            </rect>
          ))}
        </g>

        {layout.lanes.map((lane, i) => (
          <g
            key={lane.key}
            transform={`translate(0,${rowY(fixedRows.length + i) + 3})`}
            data-testid={`lane-${lane.name}`}
          >
            <title>{laneSummary(lane)}</title>
            {lane.segments.map((seg) => (
              <rect
                key={seg.kind}
                className={`tl-seg tl-seg-${seg.kind}${seg.kind === 'exited' && lane.exitCode ? ' tl-seg-failed' : ''}`}
                x={x(seg.start)}
                width={w(seg.start, seg.end)}
                height={inner}
              />
            ))}
            {lane.finishedAt !== null && (
              <text className="tl-exit" x={x(lane.finishedAt) + 4} y={inner / 2} dominantBaseline="central">
                {lane.error
                  ? 'failed'
                  : `exit ${lane.exitCode ?? '?'}${lane.reason ? ` ${lane.reason}` : ''}`}
              </text>
            )}
          </g>
        ))}
      </svg>
      <Legend />
    </div>
  );
}

function Legend() {
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
    </ul>
  );
}
