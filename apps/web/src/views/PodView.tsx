/**
 * One pod: its kubectl row (the server's row of it first, RowSummary, until the pod arrives), phase,
 * conditions and containers as the engine reports them, the back-off
 * inspector when a container is in back-off, and its history built from the pod's whole trace (from
 * GET /api/v1/trace?podUID=, then live from the stream): the timeline, the step-through and the events.
 * A pod that was deleted and removed keeps its history here while the trace holds it. The history carries
 * the model's reading of every step (../explain): the step panel shows it, the differences are listed.
 * While a step of the history is selected, the panels at the top show the pod at that step (its status
 * then, in the same rows), under an "at step N, hh:mm:ss" bar with "back to now".
 */
import type { Pod, PodStatus } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { useState } from 'react';
import { usePodTrace, useRecentTrace } from '../api/queries.ts';
import { ExplainContext, usePodExplain } from '../explain/context.ts';
import { Differences } from '../explain/Differences.tsx';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { factsOf } from '../lib/pod-facts.ts';
import type { TraceState } from '../lib/trace-store.ts';
import { AtStepBar } from '../pod/AtStepBar.tsx';
import { BackoffInspector } from '../pod/BackoffInspector.tsx';
import { ContainersPanel } from '../pod/ContainersPanel.tsx';
import { ExecPanel } from '../pod/ExecPanel.tsx';
import { type AtStep, PodHistory } from '../pod/PodHistory.tsx';
import { PodSummary } from '../pod/PodSummary.tsx';
import { ReplayBackoff } from '../pod/ReplayBackoff.tsx';
import { RowSummary } from '../pod/RowSummary.tsx';
import { useKnownPod } from '../pod/use-known-pod.ts';
import '../pod/pod.css';

// the node's sim.fault events of a trace state, computed once per state (the selector runs on each render)
let faultsMemo: { state: TraceState | null; faults: readonly TraceEvent[] } = { state: null, faults: [] };
function selectFaults(state: TraceState): readonly TraceEvent[] {
  if (faultsMemo.state !== state) {
    const prev = faultsMemo.faults;
    const next = state.events.filter((e) => e.type === 'sim.fault');
    const same = next.length === prev.length && next.every((e, i) => e === prev[i]);
    faultsMemo = { state, faults: same ? prev : next };
  }
  return faultsMemo.faults;
}

const NO_EVENTS: readonly TraceEvent[] = [];

/** The pod with the status it had at a step (none before its first status report). */
function atStep(pod: Pod, status: PodStatus | null): Pod {
  const { status: _now, ...rest } = pod;
  return status ? { ...rest, status } : rest;
}

export function PodView({ namespace, name }: { namespace: string; name: string }) {
  const known = useKnownPod(namespace, name);
  const now = useEngineNow();
  const trace = usePodTrace(known.uid);
  const faults = useRecentTrace(selectFaults).data ?? [];
  const events = trace.data?.events ?? NO_EVENTS;
  const explained = usePodExplain(events, known.uid);
  const [at, setAt] = useState<AtStep | null>(null);
  const livePod = known.pod;
  // at a selected step: the pod as its status was then, its age as of then
  const pod = at && livePod ? atStep(livePod, at.step.status) : livePod;
  const shownNow = at ? at.step.event.time : now;
  // a replay's pod: its state as core's pod-state reducer worked it out of the trace, with provenance
  const facts = !at && pod ? factsOf(pod) : undefined;

  return (
    <>
      <p>
        <a href="#/">← node</a>
      </p>
      {known.loading && !known.row && <p>Loading…</p>}
      {known.gone && !known.uid && (
        <p className="bad">
          pods "{name}" not found in namespace {namespace}
        </p>
      )}
      {known.gone && known.uid && !pod && (
        <h1 className="mono" data-testid="pod-title">
          {namespace}/{name}
        </h1>
      )}
      {known.gone && known.uid && (
        <p className="sub" data-testid="pod-gone">
          {pod
            ? 'This pod is no longer on the node: its last state and its history as the trace shows them.'
            : 'This pod is no longer on the node; its history follows.'}
        </p>
      )}
      {known.uid && <AtStepBar at={at} />}
      <div
        className={at ? 'pod-top pod-top-at-step' : 'pod-top'}
        data-at-step={at ? at.step.event.seq : undefined}
      >
        <div className="pod-facts">
          {pod && <PodSummary pod={pod} now={shownNow} worker={at ? at.step : null} />}
          {!pod && known.row && <RowSummary row={known.row} now={now} />}
          {pod && <ContainersPanel pod={pod} facts={facts} />}
        </div>
        {facts && <ReplayBackoff facts={facts} />}
        {livePod && !facts && !known.gone && (
          // at a step it stays (so the history below does not move) and says it is now
          <div className={at ? 'now-only' : 'now-panel'} data-testid={at ? 'now-only' : undefined}>
            {at && <p className="now-only-note">now, not at the step:</p>}
            <BackoffInspector
              namespace={namespace}
              name={name}
              status={livePod.status}
              statusWord={printPod(livePod, now).status}
              events={events}
            />
          </div>
        )}
      </div>
      {known.uid && (
        <section className="panel">
          <h2>History</h2>
          {trace.isError && <p className="bad">Could not load the trace: {trace.error.message}</p>}
          {trace.isPending && <p>Loading trace…</p>}
          {trace.isSuccess && (
            <ExplainContext.Provider value={explained}>
              <Differences x={explained} start={events[0]?.time ?? 0} end={events.at(-1)?.time ?? 0} />
              <PodHistory events={events} now={now} faults={faults} onAt={setAt} />
            </ExplainContext.Provider>
          )}
        </section>
      )}
      {/* below the history, so that opening it moves nothing a user is reading */}
      {livePod && !facts && !known.gone && <ExecPanel key={livePod.metadata.uid} pod={livePod} />}
    </>
  );
}
