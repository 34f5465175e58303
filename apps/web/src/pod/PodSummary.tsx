/**
 * The pod page's summary: the kubectl row's columns (STATUS, READY, RESTARTS, AGE) and the phase, with
 * their provenance where a replay's facts give them (Fact), the pod worker's state (in a replay, or at a
 * selected step), a kill's grace deadline, and the UID.
 */
import type { Pod } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import { Fragment } from 'react';
import { goDuration, localClock } from '../lib/explain.ts';
import { factsOf, rowCells } from '../lib/pod-facts.ts';
import { provenance } from '../lib/pod-state-core.ts';
import type { StepState } from '../lib/step.ts';
import { statusTone } from '../views/NodeView.tsx';
import { Fact } from './Fact.tsx';

/** The kubectl columns shown as counts, each with its provenance in a replay. */
const COUNTS = ['ready', 'restarts'] as const;

export function PodSummary({ pod, now, worker }: { pod: Pod; now: number; worker: StepState | null }) {
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
        {COUNTS.map((k) => (
          <Fragment key={k}>
            <dt>{k.toUpperCase()}</dt>
            <Fact
              as="dd"
              className="mono"
              printed={row[k]}
              cell={cells?.[k]}
              testid={`pod-${k}`}
              liveTestid={`pod-${k}`}
            />
          </Fragment>
        ))}
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
