/**
 * Runtime and PLEG health at a glance, and the page's one health banner. Live, all of it is the server's
 * word: GET /api/v1/node polled once a second (server-word.ts), its `health` judged on the server where the
 * loops run. "runtime ready" / "runtime not ready: <errors>"; "PLEG healthy, last relist 0.4s ago" or "PLEG
 * is not healthy" by the PLEG's own threshold (3 min generic, 10 min evented); then the banner
 * (health-verdict.ts): the loops running, a stall in red with the last beat's time (a sync loop or
 * housekeeping silent for more than twice its period, a PLEG past its threshold), "the page is behind" when
 * the server's word is late, or "stale since" when the stream is gone. The page never calls a stall from
 * when events reach it, so a busy browser or a slow network cannot read as a stuck kubelet.
 *
 * Also the page's h1 (the node's name). In observe mode only the relist is judged (the observed kubelet's
 * loop is not visible from the runtime).
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { localClock } from '../lib/explain.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { useReplay } from '../replay/context.ts';
import { useConnection, useViewNow } from './connection.ts';
import { healthVerdict } from './health-verdict.ts';
import { silentNow } from './liveness.ts';
import { PanelState } from './PanelState.tsx';
import { useServerWord } from './server-word.ts';

/** "0.4s", "12s", "3m5s" */
function agoText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 120) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

export function HealthPanel({ node }: { node: NodeInfo | undefined }) {
  const replay = useReplay();
  // the heartbeat: this panel asks; the others read the same answer
  const word = useServerWord(replay === null);
  useViewNow(500); // re-render on the clock, stopped once stale
  const connection = useConnection();
  const { staleSince } = connection;
  if (!node)
    return (
      <section className="panel node-health" aria-busy="true">
        <h1>Node</h1>
        <PanelState state="loading" />
      </section>
    );
  if (replay) return <ReplayHealth node={node} replay={replay} />;

  const wallNow = Date.now();
  const verdict = healthVerdict(connection, word, wallNow);
  // what the rows say was true when the word came: grey while it is not current
  const quiet = verdict.state === 'stale' || verdict.state === 'behind' || verdict.state === 'connecting';
  const runtime = word?.runtime ?? node.runtime;
  const pleg = word?.pleg ?? node.pleg;
  const relist = word?.health.beats.relist ?? null;
  const age = word && relist?.last != null ? silentNow(relist, word, wallNow, staleSince) : null;
  const plegHealthy = relist ? !relist.stalled : pleg.healthy;

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
        className={`health ${quiet ? 'health-stale' : runtime.ready ? 'health-ok' : 'health-bad'}`}
        data-testid="runtime-health"
        data-ready={String(runtime.ready)}
      >
        {runtime.ready
          ? 'runtime ready'
          : `runtime not ready: ${runtime.errors.join('; ') || 'status unknown'}`}
      </div>
      <div
        className={`health ${quiet ? 'health-stale' : plegHealthy ? 'health-ok' : 'health-bad'}`}
        data-testid="pleg-health"
        data-healthy={String(plegHealthy)}
      >
        {plegHealthy ? 'PLEG healthy' : 'PLEG is not healthy'}
        {age !== null ? `, last relist ${agoText(age)} ago` : ', no relist yet'}
        <span className="sub"> ({pleg.mode})</span>
        {!plegHealthy && pleg.message && <div className="sub">{pleg.message}</div>}
      </div>
      <div
        className={`health-banner health-banner-${verdict.state}`}
        data-testid="node-health-banner"
        data-state={verdict.state}
        role="status"
      >
        {verdict.state === 'stalled' ? (
          <div className="stalled" role="alert" data-testid="node-stalled">
            {verdict.lines.map((l) => (
              <div key={l.name} data-testid={`stalled-${l.name}`}>
                {l.text}
              </div>
            ))}
          </div>
        ) : (
          verdict.text
        )}
      </div>
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
