/**
 * The step-through: ⏮ ◀ ▶ ⏭ buttons and the pod as it was at the selected step (status, conditions,
 * containers, the worker's state and pending update, and for a SyncPod result the decision in words),
 * with the model's reading of the step beside the source's line (../explain/ModelReading.tsx).
 * Test ids: `step-controls`, `step-first|prev|next|last`, `step-position`, `step-panel`, `step-event`,
 * `step-worker`, `step-pending`, `step-phase`, `step-decision`.
 */

import { useStepReading } from '../explain/context.ts';
import { ModelReading } from '../explain/ModelReading.tsx';
import { LogLines } from '../kubelet-log/LogLines.tsx';
import { containerStateWord, describeEvent, localClock } from '../lib/explain.ts';
import { inferredTitle } from '../lib/provenance.ts';
import type { StepState } from '../lib/step.ts';
import { liveWord, useConnection } from '../node/connection.ts';
import { useReplay } from '../replay/context.ts';
import { Columns } from './Columns.tsx';
import type { StepSelection } from './use-step.ts';

export function StepControls({ sel, total, seq }: { sel: StepSelection; total: number; seq: number | null }) {
  const atStart = sel.index <= 0;
  const atEnd = sel.index >= total - 1;
  // a replay has no live edge: its last step is the end of the log (or trace) it read
  const replay = useReplay();
  const { staleSince } = useConnection();
  const last = replay ? (replay.log ? 'the end of the log' : 'the end of the trace') : liveWord(staleSince);
  return (
    <div className="step-controls" data-testid="step-controls">
      <button
        type="button"
        data-testid="step-first"
        onClick={sel.first}
        disabled={atStart}
        title="first (Home)"
      >
        |◀
      </button>
      <button
        type="button"
        data-testid="step-prev"
        onClick={sel.prev}
        disabled={atStart}
        title="previous (←)"
      >
        ◀
      </button>
      <button type="button" data-testid="step-next" onClick={sel.next} disabled={atEnd} title="next (→)">
        ▶
      </button>
      <button
        type="button"
        data-testid="step-last"
        onClick={sel.last}
        disabled={sel.live}
        title={`${last} (End)`}
      >
        ▶|
      </button>
      <span className="mono dim" data-testid="step-position">
        step {sel.index + 1} / {total}
        {seq !== null ? ` · seq ${seq}` : ''}
        {sel.live ? ` · ${last}` : ''}
      </span>
    </div>
  );
}

export function StepPanel({ step }: { step: StepState }) {
  const lines = useReplay()?.log?.lines;
  const ev = step.event;
  const reading = useStepReading(ev.seq);
  const status = step.status;
  const containers = [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])];
  return (
    <div className="step-panel" data-testid="step-panel" data-seq={ev.seq}>
      <p className="step-event">
        <span className="mono dim">{localClock(ev.time)}</span> <span className="tag">{ev.type}</span>{' '}
        <span
          data-testid="step-event"
          className={ev.inferred ? 'fact-inferred' : undefined}
          title={inferredTitle(ev) ?? undefined}
        >
          {describeEvent(ev)}
        </span>
      </p>
      {lines && <LogLines event={ev} lines={lines} />}
      <ModelReading step={reading} />
      {step.decision && (
        <div className="step-decision" data-testid="step-decision">
          <p className="step-summary">{step.decision.summary}</p>
          <ul>
            {step.decision.lines.map((l, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines, never reordered
              <li key={i}>{l}</li>
            ))}
          </ul>
        </div>
      )}
      <dl className="facts">
        <dt>worker</dt>
        <dd className="mono" data-testid="step-worker">
          {step.worker ?? '—'}
          {step.workerSince !== null && <span className="dim"> since {localClock(step.workerSince)}</span>}
        </dd>
        <dt>syncing</dt>
        <dd className="mono">
          {step.syncing
            ? `${step.syncing.workType} (${step.syncing.updateType}) since ${localClock(step.syncing.since)}`
            : '—'}
        </dd>
        <dt>pending</dt>
        <dd className="mono" data-testid="step-pending">
          {step.pending ? `${step.pending.updateType}${step.pending.coalesced ? ' (coalesced)' : ''}` : '—'}
        </dd>
        <dt>phase</dt>
        <dd className="mono" data-testid="step-phase">
          {status?.phase ?? '—'}
          {step.statusTime !== null && <span className="dim"> as of {localClock(step.statusTime)}</span>}
        </dd>
        <dt>conditions</dt>
        <dd className="mono">
          {(status?.conditions ?? []).map((c) => (
            <span key={c.type} className={c.status === 'True' ? 'cond cond-true' : 'cond'}>
              {c.type}={c.status}
            </span>
          ))}
          {!status?.conditions?.length && '—'}
        </dd>
        {step.backoffs.length > 0 && (
          <>
            <dt>back-off</dt>
            <dd className="mono bad">
              {step.backoffs.map((b) => `${b.container} until ${localClock(b.until)}`).join(', ')}
            </dd>
          </>
        )}
      </dl>
      {containers.length > 0 && (
        <table className="containers step-containers">
          <Columns names={['CONTAINER', 'STATE', 'LAST STATE', 'READY', 'RESTARTS']} />
          <tbody>
            {containers.map((cs) => (
              <tr key={cs.name} data-testid={`step-container-${cs.name}`}>
                <td className="mono">{cs.name}</td>
                <td>{containerStateWord(cs.state)}</td>
                <td>{containerStateWord(cs.lastState)}</td>
                <td>{String(cs.ready)}</td>
                <td>{cs.restartCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
