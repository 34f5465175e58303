/**
 * The back-off inspector: for each container of the pod in CrashLoopBackOff, ImagePullBackOff or
 * ErrImagePull (or between two tries of one), the last exit, the restart count, the delay ladder so far
 * with the current window marked, a live countdown to the next try on the engine clock, the reset rule,
 * and the logs of the last run. Test ids: `backoff-inspector`, `backoff-ladder`, `backoff-step-<n>`,
 * `backoff-countdown`, `backoff-next`, `backoff-rule`, `backoff-logs`, `backoff-status`, `backoff-next-sync`.
 * The ladder's constants are the node's (GET /api/v1/node). The status word is the pods table's (kubectl's
 * STATUS column), so the two never disagree; once a window is over, the next try waits for the worker's
 * next sync, whose due time is the latest SyncPod result's requeue. The rule's words are core's
 * (backoffRuleWords), as every inspector states them.
 */
import type { PodStatus } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { usePodLog } from '../api/logs.ts';
import { useNode } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import {
  type BackoffInspection,
  formatCountdown,
  inspectBackoffs,
  nextSyncDue,
  nextSyncWords,
} from '../lib/backoff.ts';
import { goDuration, localClock } from '../lib/explain.ts';
import { backoffRuleWords } from '../lib/pod-state-core.ts';
import { BackoffHead } from './BackoffHead.tsx';

export function BackoffInspector({
  namespace,
  name,
  status,
  statusWord,
  events,
}: {
  namespace: string;
  name: string;
  status: PodStatus | undefined;
  /** The pod's STATUS as the pods table shows it. */
  statusWord: string;
  events: readonly TraceEvent[];
}) {
  const now = useEngineNow(250);
  // the node's own back-off constants (its --config), core's defaults until it answers
  const config = useNode().data?.configuration;
  const items = inspectBackoffs(status, events, now, config);
  if (items.length === 0) return null;
  const afterWindow = nextSyncWords(nextSyncDue(events), now);
  return (
    <section className="panel backoff" data-testid="backoff-inspector" aria-label="back-off inspector">
      <h2>Back-off</h2>
      {items.map((b) => (
        <BackoffContainer
          key={`${b.kind}/${b.container}`}
          namespace={namespace}
          name={name}
          b={b}
          statusWord={statusWord}
          afterWindow={afterWindow}
        />
      ))}
    </section>
  );
}

function BackoffContainer({
  namespace,
  name,
  b,
  statusWord,
  afterWindow,
}: {
  namespace: string;
  name: string;
  b: BackoffInspection;
  statusWord: string;
  afterWindow: string;
}) {
  const c = b.constants;
  return (
    <div className="backoff-container" data-container={b.container}>
      <dl className="facts">
        <BackoffHead container={b.container} statusWord={statusWord} />
        {b.kind === 'image' ? (
          <>
            <dt>image</dt>
            <dd className="mono">{b.image}</dd>
          </>
        ) : (
          <>
            <dt>last exit</dt>
            <dd className="mono" data-testid="backoff-last-exit">
              {b.lastExit
                ? `${b.lastExit.exitCode} (${b.lastExit.reason || 'exit'})${b.lastExit.finishedAt ? ` at ${localClock(Date.parse(b.lastExit.finishedAt))}` : ''}`
                : '—'}
            </dd>
          </>
        )}
        <dt>restarts</dt>
        <dd className="mono">{b.restartCount}</dd>
        {b.current?.basis && (
          <>
            <dt>window</dt>
            <dd data-testid="backoff-basis" data-basis={b.current.basis}>
              {b.current.basis === 'confirmed'
                ? "confirmed by the kubelet's log"
                : "inferred (from the observed exits, by the kubelet's rule)"}
            </dd>
          </>
        )}
        <dt>next try</dt>
        <dd className="mono">
          <span data-testid="backoff-countdown" data-remaining-ms={Math.round(b.remainingMs)}>
            {formatCountdown(b.remainingMs)}
          </span>
          {b.current && (
            <span className="dim">
              {' '}
              {b.remainingMs > 0
                ? `(window ends ${localClock(b.current.until)}; the start happens at the first sync after it)`
                : `(window over at ${localClock(b.current.until)})`}
            </span>
          )}
          {b.remainingMs <= 0 && <div data-testid="backoff-next-sync">{afterWindow}</div>}
        </dd>
      </dl>
      {b.message && <p className="mono sub">{b.message}</p>}
      <ol className="backoff-ladder" data-testid="backoff-ladder">
        {b.ladder.map((r) => {
          const current = r === b.current;
          return (
            <li
              key={r.seq}
              data-testid={`backoff-step-${r.n}`}
              data-delay={r.label}
              className={current ? 'rung rung-current' : 'rung'}
              title={`${localClock(r.start)} → ${localClock(r.until)}${r.exitCode !== undefined ? `, exit ${r.exitCode}` : ''}`}
            >
              {r.label}
            </li>
          );
        })}
        <li className="rung rung-next" data-testid="backoff-next" title="if the next try fails too">
          next: {goDuration(b.nextDelayS)}
        </li>
      </ol>
      <p className="sub" data-testid="backoff-rule">
        {backoffRuleWords(b.kind, c)}
        {b.resets > 0 && ` Reset after ${b.resets} earlier window${b.resets > 1 ? 's' : ''}.`}
      </p>
      {b.kind === 'container' && (
        <BackoffLogs
          namespace={namespace}
          name={name}
          container={b.container}
          waiting={b.reason}
          restarts={b.restartCount}
        />
      )}
    </div>
  );
}

function BackoffLogs({
  namespace,
  name,
  container,
  waiting,
  restarts,
}: {
  namespace: string;
  name: string;
  container: string;
  waiting: string;
  restarts: number;
}) {
  // While waiting the last run is the previous instance; between tries it is the current one.
  const previous = waiting === 'CrashLoopBackOff';
  const log = usePodLog(namespace, name, container, previous, restarts);
  return (
    <div className="backoff-logs">
      <h3>
        logs of the last run <span className="dim mono">{previous ? '(--previous)' : ''}</span>
      </h3>
      <pre className="logs" data-testid="backoff-logs">
        {log.isPending ? 'loading…' : log.isError ? log.error.message : log.data || '(no output)'}
      </pre>
    </div>
  );
}
