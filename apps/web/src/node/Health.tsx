/**
 * Runtime and PLEG health at a glance: "runtime ready" / "runtime not ready: <errors>", and "PLEG healthy,
 * last relist 0.4s ago" / loud when the relist is older than the PLEG's threshold (3 min generic, 10 min
 * evented: the kubelet's "PLEG is not healthy"). GET /api/v1/node gives the baseline; runtime.state and
 * pleg.relist events from the stream make it live between polls.
 *
 * Also the page's h1 (the node's name), and the loud line a user must see at once when the kubelet is
 * stuck: a sync loop, PLEG relist or housekeeping that has not run for more than twice its period, in red
 * with the last one's time. Not while the stream is gone (the page then only knows it is stale), and in
 * observe mode only the relist (the observed kubelet's loop is not visible from the runtime).
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { useMemo } from 'react';
import { useRecentTrace } from '../api/queries.ts';
import { localClock } from '../lib/explain.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { useReplay } from '../replay/context.ts';
import { useConnection, useViewNow } from './connection.ts';
import { type BeatName, beatState, lastBeats, newestRuntime, stalledText } from './liveness.ts';
import { PanelState } from './PanelState.tsx';

/** "0.4s", "12s", "3m5s" */
function agoText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 120) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

/** The stalled beats, worded; none while the page cannot know (stale, replay). */
function Stalls({ node, events, now }: { node: NodeInfo; events: readonly TraceEvent[]; now: number }) {
  const config = node.configuration ?? defaultKubeletConfiguration;
  const beats = useMemo(() => lastBeats(events, config, node), [events, config, node]);
  const names: BeatName[] = node.observing !== undefined ? ['relist'] : ['loop', 'relist', 'housekeeping'];
  const lines = names.flatMap((name) => {
    const s = beatState(beats[name], now);
    return s.state === 'stalled' ? [{ name, text: stalledText(name, s) }] : [];
  });
  if (lines.length === 0) return null;
  return (
    <div className="stalled" role="alert" data-testid="node-stalled">
      {lines.map((l) => (
        <div key={l.name} data-testid={`stalled-${l.name}`}>
          {l.name === 'loop' ? 'sync loop' : l.name === 'relist' ? 'PLEG' : 'housekeeping'} stalled: {l.text}
        </div>
      ))}
    </div>
  );
}

export function HealthPanel({ node }: { node: NodeInfo | undefined }) {
  const trace = useRecentTrace();
  const now = useViewNow(500);
  const replay = useReplay();
  const { staleSince } = useConnection();
  const events = trace.data?.events;
  const seen = useMemo(() => newestRuntime(events ?? []), [events]);
  // the stream is gone: what these say was true at staleSince, so they lose their colour
  const stale = staleSince !== null;
  if (!node)
    return (
      <section className="panel node-health" aria-busy="true">
        <h1>Node</h1>
        <PanelState state="loading" />
      </section>
    );

  if (replay) return <ReplayHealth node={node} replay={replay} />;
  const ready = seen.runtime ? seen.runtime.ready : node.runtime.ready;
  const errors = seen.runtime ? seen.runtime.errors : node.runtime.errors;
  const lastRelist = Math.max(node.pleg.lastRelist ?? 0, seen.relist ?? 0) || null;
  const cfg = node.configuration;
  const threshold =
    node.pleg.mode === 'evented' ? cfg.eventedPlegRelistThresholdMs : cfg.genericPlegRelistThresholdMs;
  const age = lastRelist === null ? null : now - lastRelist;
  const plegHealthy = node.pleg.healthy && (age === null || age <= threshold);

  return (
    <section className="panel node-health" data-testid="node-health">
      <div>
        <h1>
          <span className="k">node</span> <span className="mono">{node.nodeName}</span>
          {node.simulated && <span className="tag">simulated</span>}
          <PanelState
            state={staleSince !== null ? 'stale' : 'live'}
            staleSince={staleSince}
            testId="health-state"
          />
        </h1>
        {node.observing !== undefined && (
          <div className="observing" data-testid="observing">
            observing the kubelet on <span className="mono">{node.observing}</span> (read-only)
          </div>
        )}
        <div className="sub mono">
          {node.runtime.name} {node.runtime.version} · {node.runtime.endpoint}
        </div>
      </div>
      <div
        className={`health ${stale ? 'health-stale' : ready ? 'health-ok' : 'health-bad'}`}
        data-testid="runtime-health"
        data-ready={String(ready)}
      >
        {ready ? 'runtime ready' : `runtime not ready: ${errors.join('; ') || 'status unknown'}`}
      </div>
      <div
        className={`health ${stale ? 'health-stale' : plegHealthy ? 'health-ok' : 'health-bad'}`}
        data-testid="pleg-health"
        data-healthy={String(plegHealthy)}
      >
        {plegHealthy ? 'PLEG healthy' : 'PLEG is not healthy'}
        {age !== null ? `, last relist ${agoText(age)} ago` : ', no relist yet'}
        <span className="sub"> ({node.pleg.mode})</span>
        {!plegHealthy && node.pleg.message && <div className="sub">{node.pleg.message}</div>}
      </div>
      {staleSince === null && <Stalls node={node} events={events ?? []} now={now} />}
    </section>
  );
}

/**
 * A replay's runtime and PLEG: only what its events state. A kubelet log seldom says whether the runtime is
 * ready or the PLEG healthy, so neither is claimed ("not in the log"); its PLEG lines date the last relist
 * seen, measured from the log's end (its last line), never from the wall clock.
 */
function ReplayHealth({ node, replay }: { node: NodeInfo; replay: ReplayStore }) {
  const { stated, now } = replay;
  const source = replay.log ? 'the log' : 'the trace';
  const rs = stated.runtimeState;
  const before = (t: number) => `${localClock(t)}, ${agoText(now - t)} before the end of ${source}`;
  return (
    <section className="panel node-health" data-testid="node-health">
      <div>
        <h1>
          <span className="k">node</span> <span className="mono">{node.nodeName}</span>
          <PanelState state="replay" staleSince={null} testId="health-state" />
        </h1>
        <div className="sub mono" data-testid="runtime-name">
          {stated.runtime
            ? `${stated.runtime.name} ${stated.runtime.version} · ${stated.runtime.endpoint}`
            : `container runtime: not in ${source}`}
        </div>
      </div>
      <div
        className={`health ${rs === null ? 'health-unknown' : rs.ready ? 'health-ok' : 'health-bad'}`}
        data-testid="runtime-health"
        data-ready={rs === null ? 'unknown' : String(rs.ready)}
      >
        {rs === null
          ? `runtime status: not in ${source}`
          : `${rs.ready ? 'runtime ready' : `runtime not ready: ${rs.errors.join('; ') || 'no reason given'}`} (at ${localClock(rs.time)})`}
      </div>
      <div className="health health-unknown" data-testid="pleg-health" data-healthy="unknown">
        {stated.lastRelist !== null
          ? `PLEG: last relist at ${before(stated.lastRelist)}`
          : stated.lastPlegEvent !== null
            ? `PLEG: last event at ${before(stated.lastPlegEvent)}`
            : `PLEG: no relist in ${source}`}
        <div className="sub">PLEG health: not in {source}</div>
      </div>
    </section>
  );
}
