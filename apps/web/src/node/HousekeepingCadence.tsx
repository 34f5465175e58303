/**
 * The housekeeping cadence: for each of the last runs of HandlePodCleanups, the interval since the run
 * before (light bar; the ticker fires every housekeepingPeriod, 2 s) and its duration (dark bar; red past
 * housekeepingWarningDuration, 1 s, when the kubelet logs "Housekeeping took longer than expected"),
 * read from the node's aggregates (the server's housekeeping beats, or a replay's), never the trace.
 * The chart takes the panel's width; the heading's chip says live, stale, stalled (no run for more than
 * twice the period, with the last one's time), empty or replay. Observing a kubelet there are no runs to
 * see, and the panel says so (the loop strip says why).
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { useMemo } from 'react';
import { useNodeAggregates } from '../api/queries.ts';
import { housekeepingRuns, layoutCadence } from '../lib/cadence.ts';
import type { NodeAggregatesState } from '../lib/node-aggregates-cache.ts';
import { useReplay } from '../replay/context.ts';
import { useWidth } from '../timeline/use-width.ts';
import { useConnection, useViewNow } from './connection.ts';
import { beatPanelState } from './liveness.ts';
import { PanelState } from './PanelState.tsx';
import { useServerWord } from './server-word.ts';

const HEIGHT = 110;
const LEFT = 34;
const RIGHT = 150;

const selectHousekeeping = (a: NodeAggregatesState) => a.housekeeping;

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${Math.round(ms)}ms`);

export function HousekeepingCadence({ node }: { node: NodeInfo | undefined }) {
  const beats = useNodeAggregates(selectHousekeeping).data;
  useViewNow(500); // re-render on the clock: a late word turns the chip to "behind"
  const replay = useReplay();
  const fromLog = replay?.log !== undefined;
  const { staleSince } = useConnection();
  const word = useServerWord();
  const [ref, outer] = useWidth<HTMLDivElement>(600);
  const WIDTH = Math.max(200, outer - LEFT - RIGHT);
  const config = node?.configuration ?? defaultKubeletConfiguration;
  const periodMs = config.housekeepingPeriodMs;
  const warningMs = config.housekeepingWarningDurationMs;
  const runs = useMemo(() => housekeepingRuns(beats ?? []), [beats]);
  const layout = useMemo(
    () => layoutCadence(runs, { width: WIDTH, height: HEIGHT, periodMs, warningMs }),
    [runs, periodMs, warningMs, WIDTH],
  );
  const last = runs[runs.length - 1];
  if (node?.observing !== undefined) {
    return (
      <section className="panel cadence" data-testid="housekeeping-cadence" aria-labelledby="cad-title">
        <h2 id="cad-title">
          Housekeeping cadence <PanelState state="observing" testId="cadence-state" />
        </h2>
        <p className="note" data-testid="cadence-observing">
          The observed kubelet's housekeeping runs inside it and leaves no trace in the container runtime.
        </p>
      </section>
    );
  }
  const { state, detail } = beatPanelState('housekeeping', word, {
    replay: replay !== null,
    staleSince,
    loaded: node !== undefined && node !== null,
    wallNow: Date.now(),
  });
  return (
    <section
      className="panel cadence"
      data-testid="housekeeping-cadence"
      data-runs={runs.length}
      aria-labelledby="cad-title"
    >
      <h2 id="cad-title">
        Housekeeping cadence{' '}
        <PanelState state={state} staleSince={staleSince} detail={detail} testId="cadence-state" />
      </h2>
      <p className="sub">
        {last
          ? fromLog
            ? // a log's housekeeping lines give the run's time (and from v1.27 its duration), never its counts
              `last run ${last.durationMs === 0 ? 'of unknown length' : fmt(last.durationMs)}${last.intervalMs === null ? '' : `, ${fmt(last.intervalMs)} after the one before`}`
            : `last run ${fmt(last.durationMs)}, ${last.intervalMs === null ? '' : `${fmt(last.intervalMs)} after the one before; `}` +
              `forgot ${last.forgotten}, killed ${last.orphansKilled} orphan(s), restarted ${last.restarted}`
          : fromLog
            ? 'no housekeeping run in the log (its lines are written at -v=4)'
            : 'no housekeeping run seen yet'}
      </p>
      <div ref={ref} className="cadence-chart">
        <svg
          width={LEFT + WIDTH + RIGHT}
          height={HEIGHT + 8}
          role="img"
          aria-label="housekeeping interval and duration"
        >
          <g transform={`translate(${LEFT},4)`}>
            {layout.yTicks.map((t) => (
              <text key={t.label} className="cad-tick" x={-4} y={t.y + 3} textAnchor="end">
                {t.label}
              </text>
            ))}
            <line className="cad-base" x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} />
            {layout.bars.map((b) => (
              <g key={b.seq}>
                {b.interval && (
                  <rect
                    className={b.late ? 'cad-interval cad-late' : 'cad-interval'}
                    x={b.x}
                    y={b.interval.y}
                    width={b.width}
                    height={b.interval.height}
                  />
                )}
                <rect
                  className={b.slow ? 'cad-duration cad-slow' : 'cad-duration'}
                  x={b.x + b.width / 4}
                  y={b.duration.y}
                  width={b.width / 2}
                  height={b.duration.height}
                />
                <title>
                  {`interval ${b.run.intervalMs === null ? '?' : fmt(b.run.intervalMs)}, took ${fmt(b.run.durationMs)}`}
                </title>
              </g>
            ))}
            <line className="cad-limit" x1={0} x2={WIDTH} y1={layout.periodY} y2={layout.periodY} />
            <text className="cad-label" x={WIDTH + 6} y={layout.periodY + 4}>
              period {fmt(periodMs)}
            </text>
            <line
              className="cad-limit cad-warn"
              x1={0}
              x2={WIDTH}
              y1={layout.warningY}
              y2={layout.warningY}
            />
            <text className="cad-label cad-warn-label" x={WIDTH + 6} y={layout.warningY + 4}>
              warning {fmt(warningMs)}
            </text>
          </g>
        </svg>
      </div>
      <ul className="loop-legend" aria-label="legend">
        <li>
          <span className="swatch cad-swatch-interval" /> interval
        </li>
        <li>
          <span className="swatch cad-swatch-duration" /> duration
        </li>
      </ul>
    </section>
  );
}
