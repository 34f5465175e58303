/**
 * Runtime and PLEG health at a glance: "runtime ready" / "runtime not ready: <errors>", and "PLEG healthy,
 * last relist 0.4s ago" / loud when the relist is older than the PLEG's threshold (3 min generic, 10 min
 * evented: the kubelet's "PLEG is not healthy"). GET /api/v1/node gives the baseline; runtime.state and
 * pleg.relist events from the stream make it live between polls.
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { useMemo } from 'react';
import { useRecentTrace } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';

type RuntimeState = Extract<TraceEvent, { type: 'runtime.state' }>;

function latest(events: readonly TraceEvent[]): { runtime?: RuntimeState; relist?: number } {
  let runtime: RuntimeState | undefined;
  let relist: number | undefined;
  for (let i = events.length - 1; i >= 0 && (!runtime || relist === undefined); i--) {
    const ev = events[i] as TraceEvent;
    if (!runtime && ev.type === 'runtime.state') runtime = ev;
    else if (relist === undefined && ev.type === 'pleg.relist') relist = ev.time;
  }
  return { runtime, relist };
}

/** "0.4s", "12s", "3m5s" */
export function agoText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 10) return `${s.toFixed(1)}s`;
  if (s < 120) return `${Math.round(s)}s`;
  return `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

export function HealthPanel({ node }: { node: NodeInfo | undefined }) {
  const trace = useRecentTrace();
  const now = useEngineNow(500);
  const events = trace.data?.events;
  const seen = useMemo(() => latest(events ?? []), [events]);
  if (!node) return <section className="panel node-health">Loading node…</section>;

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
        <span className="k">node</span> <span className="mono">{node.nodeName}</span>
        {node.simulated && <span className="tag">simulated</span>}
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
        className={`health ${ready ? 'health-ok' : 'health-bad'}`}
        data-testid="runtime-health"
        data-ready={String(ready)}
      >
        {ready ? 'runtime ready' : `runtime not ready: ${errors.join('; ') || 'status unknown'}`}
      </div>
      <div
        className={`health ${plegHealthy ? 'health-ok' : 'health-bad'}`}
        data-testid="pleg-health"
        data-healthy={String(plegHealthy)}
      >
        {plegHealthy ? 'PLEG healthy' : 'PLEG is not healthy'}
        {age !== null ? `, last relist ${agoText(age)} ago` : ', no relist yet'}
        <span className="sub"> ({node.pleg.mode})</span>
        {!plegHealthy && node.pleg.message && <div className="sub">{node.pleg.message}</div>}
      </div>
    </section>
  );
}
