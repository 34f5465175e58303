/**
 * One pod: its kubectl row, phase, conditions and containers as the engine reports them, the back-off
 * inspector when a container is in back-off, and its history built from the pod's whole trace (from
 * GET /api/v1/trace?podUID=, then live from the stream): the timeline, the step-through and the events.
 * A pod that was deleted and removed keeps its history here while the trace holds it. The history carries
 * the model's reading of every step (../explain): the step panel shows it, the differences are listed.
 * While a step of the history is selected, the panels at the top show the pod at that step (its status
 * then, in the same rows), under an "at step N, hh:mm:ss" bar with "back to now".
 */
import type { ContainerState, ContainerStatus, Pod, PodStatus } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { useState } from 'react';
import { usePodTrace, useRecentTrace } from '../api/queries.ts';
import { ExplainContext, usePodExplain } from '../explain/context.ts';
import { Differences } from '../explain/Differences.tsx';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { goDuration, localClock } from '../lib/explain.ts';
import { factsOf, rowCells } from '../lib/pod-facts.ts';
import { provenance } from '../lib/pod-state-core.ts';
import type { StepState } from '../lib/step.ts';
import type { TraceState } from '../lib/trace-store.ts';
import { AtStepBar } from '../pod/AtStepBar.tsx';
import { BackoffInspector } from '../pod/BackoffInspector.tsx';
import { Fact } from '../pod/Fact.tsx';
import { FactContainers } from '../pod/FactContainers.tsx';
import { type AtStep, PodHistory } from '../pod/PodHistory.tsx';
import { ReplayBackoff } from '../pod/ReplayBackoff.tsx';
import { useKnownPod } from '../pod/use-known-pod.ts';
import '../pod/pod.css';
import { Columns } from '../pod/Columns.tsx';
import { statusTone } from './NodeView.tsx';

function stateText(state: ContainerState | undefined): string {
  if (!state) return '';
  if (state.running) return 'Running';
  if (state.waiting) return `Waiting${state.waiting.reason ? ` (${state.waiting.reason})` : ''}`;
  if (state.terminated) {
    const t = state.terminated;
    return `Terminated (${t.reason ?? 'exit'} ${t.exitCode})`;
  }
  return '';
}

function ContainersTable({ pod }: { pod: Pod }) {
  const statuses = new Map<string, ContainerStatus>();
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    statuses.set(cs.name, cs);
  }
  const containers = [
    ...(pod.spec.initContainers ?? []).map((c) => ({ c, init: true })),
    ...pod.spec.containers.map((c) => ({ c, init: false })),
  ];
  return (
    <table className="containers">
      <Columns names={['CONTAINER', 'IMAGE', 'STATE', 'LAST STATE', 'READY', 'RESTARTS']} />
      <tbody>
        {containers.map(({ c, init }) => {
          const cs = statuses.get(c.name);
          return (
            <tr key={c.name} data-testid={`container-${c.name}`}>
              <td className="mono">
                {init && <span className="tag">{c.restartPolicy === 'Always' ? 'sidecar' : 'init'}</span>}
                {c.name}
              </td>
              <td className="mono">{c.image}</td>
              <td>{stateText(cs?.state)}</td>
              <td>{stateText(cs?.lastState)}</td>
              <td>{cs ? String(cs.ready) : ''}</td>
              <td>{cs?.restartCount ?? ''}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

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
      {known.loading && <p>Loading…</p>}
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
          {pod && (
            <section className="panel">
              <h2>Containers</h2>
              {facts ? <FactContainers facts={facts} /> : <ContainersTable pod={pod} />}
              <Conditions pod={pod} />
            </section>
          )}
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
    </>
  );
}

function Conditions({ pod }: { pod: Pod }) {
  const conditions = pod.status?.conditions ?? [];
  if (conditions.length === 0) return null;
  return (
    <p className="conditions" data-testid="pod-conditions">
      {conditions.map((c) => (
        <span
          key={c.type}
          className={c.status === 'True' ? 'cond cond-true' : 'cond'}
          title={[c.reason, c.message].filter(Boolean).join(': ')}
        >
          {c.type}={c.status}
        </span>
      ))}
    </p>
  );
}

function PodSummary({ pod, now, worker }: { pod: Pod; now: number; worker: StepState | null }) {
  const row = printPod(pod, now);
  const facts = factsOf(pod);
  const cells = facts && rowCells(facts);
  const phase = facts?.phase;
  return (
    <section className="panel pod-summary">
      <h1 className="mono" data-testid="pod-title">
        {row.namespace}/{row.name}
      </h1>
      <dl className="facts">
        <dt>STATUS</dt>
        <Fact
          as="dd"
          className={`mono status status-${statusTone(cells ? cells.status.text : row.status)}`}
          printed={row.status}
          cell={cells?.status}
          testid="pod-status"
          liveTestid="pod-status"
        />
        <dt>phase</dt>
        <Fact
          as="dd"
          className="mono"
          printed={pod.status?.phase ?? ''}
          cell={
            phase && {
              text: phase.basis === 'unknown' ? '—' : phase.value,
              basis: phase.basis,
              title: provenance(phase),
            }
          }
          testid="pod-phase"
          liveTestid="pod-phase"
        />
        <dt>READY</dt>
        <Fact
          as="dd"
          className="mono"
          printed={row.ready}
          cell={cells?.ready}
          testid="pod-ready"
          liveTestid="pod-ready"
        />
        <dt>RESTARTS</dt>
        <Fact
          as="dd"
          className="mono"
          printed={row.restarts}
          cell={cells?.restarts}
          testid="pod-restarts"
          liveTestid="pod-restarts"
        />
        <dt>AGE</dt>
        <dd className="mono">{row.age}</dd>
        {facts && (
          <>
            <dt>worker</dt>
            <Fact
              as="dd"
              className="mono"
              printed=""
              cell={{
                text:
                  facts.worker.basis === 'unknown'
                    ? '—'
                    : `${facts.worker.value}${facts.worker.since !== undefined ? ` since ${localClock(facts.worker.since)}` : ''}`,
                basis: facts.worker.basis,
                title: provenance(facts.worker),
              }}
              testid="pod-worker"
              liveTestid="pod-worker"
            />
          </>
        )}
        {worker && (
          <>
            <dt>worker</dt>
            <dd className="mono" data-testid="pod-worker-at-step">
              {worker.worker ?? '—'}
              {worker.workerSince !== null && ` since ${localClock(worker.workerSince)}`}
            </dd>
          </>
        )}
        {facts?.grace && (
          <>
            <dt>grace</dt>
            <dd
              className="mono"
              data-testid="pod-grace"
              title={`the kill (line ${facts.grace.from.line ?? '?'}) plus the grace period it sent`}
            >
              {`${goDuration(facts.grace.gracePeriodS)} from ${localClock(facts.grace.start)}, deadline ${localClock(facts.grace.deadline)}`}
            </dd>
          </>
        )}
        <dt>UID</dt>
        <dd className="mono">{pod.metadata.uid ?? ''}</dd>
      </dl>
      {pod.status?.message && <p className="sub">{pod.status.message}</p>}
    </section>
  );
}
