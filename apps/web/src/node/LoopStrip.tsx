/**
 * The sync loop, live: the last 60 s of syncLoopIteration as marks in one lane per source, with the count
 * per source in the legend, skipped iterations (runtime down) in red and injected faults as markers. Reads
 * the recent trace (the stream's cache, or a replay) and redraws on each tick of the engine clock.
 */
import type { LoopSource } from '@syncscope/core/trace';
import { memo, useMemo } from 'react';
import { useRecentTrace } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import {
  LOOP_AXIS_HEIGHT,
  LOOP_LANE_HEIGHT,
  LOOP_SOURCE_COLORS,
  LOOP_SOURCES,
  type LoopStripLayout,
  layoutLoopStrip,
} from '../lib/loop-strip.ts';
import { useWidth } from '../timeline/use-width.ts';

const LABEL_WIDTH = 96;

const LoopStripSvg = memo(function LoopStripSvg({ layout }: { layout: LoopStripLayout }) {
  const lanesHeight = layout.height - LOOP_AXIS_HEIGHT;
  return (
    <svg
      width={layout.width + LABEL_WIDTH}
      height={layout.height}
      role="img"
      aria-label="sync loop iterations"
    >
      <g className="loop-labels">
        {LOOP_SOURCES.map((s) => (
          <text key={s} x={LABEL_WIDTH - 8} y={layout.laneY[s] + LOOP_LANE_HEIGHT - 4} textAnchor="end">
            {s}
          </text>
        ))}
      </g>
      <g transform={`translate(${LABEL_WIDTH},0)`}>
        {LOOP_SOURCES.map((s) => (
          <rect
            key={s}
            className="loop-lane"
            x={0}
            y={layout.laneY[s]}
            width={layout.width}
            height={LOOP_LANE_HEIGHT}
          />
        ))}
        {layout.skipped.map((m) => (
          <rect
            key={`s${m.seq}`}
            className="loop-skipped"
            data-testid="loop-skipped"
            x={m.x}
            y={0}
            width={m.width}
            height={lanesHeight}
          >
            <title>{`skipped: ${m.errors.join('; ')} (backoff ${m.backoffMs} ms)`}</title>
          </rect>
        ))}
        {layout.iterations.map((m) => (
          <rect
            key={m.seq}
            className={`loop-iter loop-iter-${m.source}`}
            x={m.x}
            y={m.y}
            width={m.width}
            height={LOOP_LANE_HEIGHT}
            fill={LOOP_SOURCE_COLORS[m.source]}
          >
            <title>{`${m.source}: ${m.pods} pod(s), ${m.durationMs} ms`}</title>
          </rect>
        ))}
        {layout.faults.map((f) => (
          <g key={`f${f.seq}`} className="loop-fault" data-testid="loop-fault" data-fault={f.fault}>
            <line x1={f.x} x2={f.x} y1={0} y2={lanesHeight} />
            <path d={`M${f.x - 4},0 L${f.x + 4},0 L${f.x},6 Z`} />
            <title>{`fault ${f.fault}: ${f.detail}`}</title>
          </g>
        ))}
        <g className="loop-axis" transform={`translate(0,${lanesHeight + 12})`}>
          {layout.ticks.map((t) => (
            <text key={t.label} x={t.x} textAnchor={t.label === 'now' ? 'end' : 'middle'}>
              {t.label}
            </text>
          ))}
        </g>
      </g>
    </svg>
  );
});

function Legend({
  counts,
  skipped,
  faults,
}: {
  counts: Record<LoopSource, number>;
  skipped: number;
  faults: number;
}) {
  return (
    <ul className="loop-legend">
      {LOOP_SOURCES.map((s) => (
        <li key={s}>
          <span className="swatch" style={{ background: LOOP_SOURCE_COLORS[s] }} />
          {s} <b data-testid={`loop-source-${s}`}>{counts[s]}</b>
        </li>
      ))}
      <li>
        <span className="swatch swatch-skipped" />
        skipped <b data-testid="loop-skipped-count">{skipped}</b>
      </li>
      <li>
        <span className="swatch swatch-fault" />
        faults <b data-testid="loop-fault-count">{faults}</b>
      </li>
    </ul>
  );
}

export function LoopStrip() {
  const trace = useRecentTrace();
  const now = useEngineNow(250);
  const [ref, outer] = useWidth<HTMLDivElement>(900);
  const width = Math.max(200, outer - LABEL_WIDTH);
  const events = trace.data?.events;
  const layout = useMemo(() => layoutLoopStrip(events ?? [], now, width), [events, now, width]);
  return (
    <section className="panel" data-testid="loop-strip">
      <h2>Sync loop — last 60 s</h2>
      <div ref={ref} className="loop-strip">
        <LoopStripSvg layout={layout} />
      </div>
      <Legend counts={layout.counts} skipped={layout.skippedCount} faults={layout.faults.length} />
    </section>
  );
}
