/**
 * The sync loop, live: the last 60 s of syncLoopIteration, each second a cell in the lane of each source
 * that woke the loop in it (darker the more iterations), with the count per source in the legend, every
 * PLEG relist as a tick on the pleg lane, skipped iterations (runtime down) in red and injected faults as
 * markers. Reads the node's aggregates (the server's, kept live by their stream, or a replay's), never the
 * trace, and redraws on each tick of the page's clock (which stops while the stream is gone).
 *
 * The heading's chip says what the strip knows: live, stale (stream gone), stalled (no iteration for more
 * than twice the sync ticker), or replay. When the data starts less than 60 s ago, the part before it is
 * hatched and the heading says how many seconds it has. Observing a kubelet, the strip is
 * replaced by why it is empty: that kubelet's loop iterations are not visible from the runtime.
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { LoopSource } from '@syncscope/core/trace';
import { memo, useMemo } from 'react';
import { useNodeAggregates } from '../api/queries.ts';
import {
  LOOP_AXIS_HEIGHT,
  LOOP_LANE_HEIGHT,
  LOOP_SOURCE_COLORS,
  LOOP_SOURCES,
  type LoopStripLayout,
  layoutLoopStrip,
} from '../lib/loop-strip.ts';
import { emptyAggregates } from '../lib/node-aggregates-cache.ts';
import { useReplay } from '../replay/context.ts';
import { useWidth } from '../timeline/use-width.ts';
import { useConnection, useViewNow } from './connection.ts';
import { beatPanelState, clockText } from './liveness.ts';
import { PanelState } from './PanelState.tsx';
import { useServerWord } from './server-word.ts';

const LABEL_WIDTH = 96;

const LoopStripSvg = memo(function LoopStripSvg({
  layout,
  fromLog,
}: {
  layout: LoopStripLayout;
  /** a kubelet log's replay: its 0 durations and pod counts were not stated, and its right edge is its end */
  fromLog: boolean;
}) {
  const ms = (v: number, what = '') => (fromLog && v === 0 ? '' : `, ${what}${v} ms`);
  const lanesHeight = layout.height - LOOP_AXIS_HEIGHT;
  return (
    <svg
      width={layout.width + LABEL_WIDTH}
      height={layout.height}
      role="img"
      aria-label="sync loop iterations of the last 60 seconds, one lane per source"
    >
      <defs>
        <pattern id="loop-nodata-hatch" width="6" height="6" patternUnits="userSpaceOnUse">
          <path d="M0,6 L6,0" className="loop-hatch" />
        </pattern>
      </defs>
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
        {layout.dataFrom !== null && (
          <rect
            className="loop-nodata"
            data-testid="loop-nodata"
            fill="url(#loop-nodata-hatch)"
            x={0}
            y={0}
            width={Math.max(0, layout.x(layout.dataFrom))}
            height={lanesHeight}
          >
            <title>no data: the trace held here starts later</title>
          </rect>
        )}
        {layout.relists.map((r) => (
          <line
            key={`r${r.seq}`}
            className={r.events > 0 ? 'loop-relist loop-relist-events' : 'loop-relist'}
            x1={r.x}
            x2={r.x}
            y1={layout.laneY.pleg - 2}
            y2={layout.laneY.pleg + LOOP_LANE_HEIGHT + 2}
          >
            <title>{`relist: ${r.events} event(s)${ms(r.durationMs)}`}</title>
          </line>
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
        {layout.cells.map((c) => (
          <rect
            key={`${c.source}${c.t}`}
            className={`loop-iter loop-iter-${c.source}`}
            x={c.x}
            y={c.y}
            width={c.width}
            height={LOOP_LANE_HEIGHT}
            fillOpacity={0.35 + 0.65 * c.weight}
          >
            <title>
              {`${c.source}: ${c.count} iteration(s) in the second from ${clockText(c.t)}${ms(c.maxMs, 'longest ')}`}
            </title>
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
              {fromLog && t.label === 'now' ? 'end of log' : t.label}
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
  relists,
}: {
  counts: Record<LoopSource, number>;
  skipped: number;
  faults: number;
  relists: number;
}) {
  return (
    <ul className="loop-legend" aria-label="legend">
      {LOOP_SOURCES.map((s) => (
        <li key={s}>
          <span className="swatch" style={{ background: LOOP_SOURCE_COLORS[s] }} />
          {s} <b data-testid={`loop-source-${s}`}>{counts[s]}</b>
        </li>
      ))}
      <li>
        <span className="swatch swatch-relist" />
        relists <b data-testid="loop-relist-count">{relists}</b>
      </li>
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

const WINDOW_S = 60;
const EMPTY = emptyAggregates();

export function LoopStrip({ node }: { node: NodeInfo | undefined }) {
  const aggregates = useNodeAggregates().data;
  const now = useViewNow(250);
  const replay = useReplay();
  const { staleSince } = useConnection();
  const [ref, outer] = useWidth<HTMLDivElement>(900);
  const width = Math.max(200, outer - LABEL_WIDTH);
  const layout = useMemo(() => layoutLoopStrip(aggregates ?? EMPTY, now, width), [aggregates, now, width]);
  const word = useServerWord();

  if (node?.observing !== undefined) {
    return (
      <section className="panel" data-testid="loop-strip" aria-labelledby="loop-title">
        <h2 id="loop-title">
          Sync loop <PanelState state="observing" testId="loop-state" />
        </h2>
        <p className="note" data-testid="loop-observing">
          Observing the kubelet on <span className="mono">{node.observing}</span>: its sync-loop iterations
          and housekeeping runs happen inside that kubelet and are not visible from the container runtime, so
          there is nothing to draw here. What the runtime shows (PLEG events, container starts and exits,
          inferred back-off) is on each pod's page.
        </p>
      </section>
    );
  }

  const { state, detail } = beatPanelState('loop', word, {
    replay: replay !== null,
    staleSince,
    loaded: Boolean(aggregates && node),
    wallNow: Date.now(),
  });
  const haveS = layout.dataFrom === null ? WINDOW_S : Math.max(0, Math.floor((now - layout.dataFrom) / 1000));
  return (
    <section className="panel" data-testid="loop-strip" aria-labelledby="loop-title">
      <h2 id="loop-title">
        Sync loop — last 60 s{' '}
        <PanelState state={state} staleSince={staleSince} detail={detail} testId="loop-state" />
      </h2>
      {haveS < WINDOW_S && (
        <p className="sub" data-testid="loop-coverage">
          {aggregates?.from == null
            ? 'no events held yet'
            : haveS === 0
              ? 'the trace held here covers less than the last second of 60; the hatched part has no data'
              : `the trace held here covers the last ${haveS} s of 60 (since ${clockText(now - haveS * 1000)}); the hatched part has no data`}
        </p>
      )}
      <div ref={ref} className="loop-strip">
        <LoopStripSvg layout={layout} fromLog={replay?.log !== undefined} />
      </div>
      <Legend
        counts={layout.counts}
        skipped={layout.skippedCount}
        faults={layout.faults.length}
        relists={layout.relists.length}
      />
    </section>
  );
}
