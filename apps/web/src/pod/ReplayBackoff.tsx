/**
 * The back-off inspector of a replay (a kubelet log, an exported trace): the windows core's pod-state reducer
 * folded from the trace's `backoff` events, per container: the death that started the window (its exit code
 * when the trace holds it, with the log line), the ladder of delays so far, the delay in force, when the next
 * try was due, and what happened then: the restart (its time and line), or that the trace ends inside the
 * window, and the reset rule in the live inspector's words (core's backoffRuleWords) under the kubelet's
 * default settings, which a log does not state. Nothing here counts down: a replay's clock stands at its last
 * event. Test ids as the live inspector's (`backoff-inspector`, `backoff-ladder`, `backoff-step-<n>`,
 * `backoff-status`, `backoff-rule`) plus `backoff-outcome`, `backoff-death` and `backoff-rule-source`.
 */

import { goDuration, localClock } from '../lib/explain.ts';
import { cell, factClass } from '../lib/pod-facts.ts';
import {
  type BackoffState,
  backoffConstants,
  backoffRuleWords,
  type PodSnapshot,
  type Source,
} from '../lib/pod-state-core.ts';
import { useReplay } from '../replay/context.ts';
import { BackoffHead } from './BackoffHead.tsx';

const at = (from: Source) => (from.line !== undefined ? `line ${from.line}` : `event ${from.seq}`);

function outcomeWords(b: BackoffState, source: string): string {
  const o = b.outcome;
  if (o.kind === 'restarted') {
    const late = Math.round((o.at - b.until) / 1000);
    return `restarted at ${localClock(o.at)} (${at(o.from)}), ${late >= 0 ? `${late} s after the window` : 'as the window ended'}`;
  }
  if (o.kind === 'ends-inside')
    return `${source} ends at ${localClock(o.at)}, inside the window (${Math.ceil((b.until - o.at) / 1000)} s before the next try)`;
  return `no restart in ${source} after the window (it ends at ${localClock(o.at)})`;
}

function Window({ b, statusWord }: { b: BackoffState; statusWord: string }) {
  const source = useReplay()?.log ? 'the log' : 'the trace';
  const exit = cell(b.exitCode, String);
  return (
    <div className="backoff-container" data-container={b.container}>
      <dl className="facts">
        <BackoffHead container={b.container} statusWord={statusWord} />
        <dt>{b.kind === 'image' ? 'failed pull' : 'died'}</dt>
        <dd className="mono" data-testid="backoff-death">
          {b.death
            ? `${localClock(b.death.time)} (${at(b.death.from)})`
            : `window opened ${localClock(b.since)}`}
          {b.kind === 'container' && (
            <>
              {', exit '}
              <span className={factClass(exit.basis)} title={exit.title} data-basis={exit.basis}>
                {exit.text}
              </span>
            </>
          )}
        </dd>
        <dt>delay</dt>
        <dd className="mono">
          {goDuration(b.delayS)} <span className="dim">({at(b.from)})</span>
        </dd>
        <dt>next try due</dt>
        <dd className="mono">{localClock(b.until)}</dd>
        <dt>then</dt>
        <dd data-testid="backoff-outcome" data-outcome={b.outcome.kind}>
          {outcomeWords(b, source)}
        </dd>
        {b.basis && (
          <>
            <dt>window</dt>
            <dd data-testid="backoff-basis">
              {b.basis === 'confirmed'
                ? "confirmed by the kubelet's log"
                : 'inferred from the observed exits'}
            </dd>
          </>
        )}
      </dl>
      <ol className="backoff-ladder" data-testid="backoff-ladder">
        {b.ladder.map((r, i) => (
          <li
            key={r.seq}
            data-testid={`backoff-step-${i + 1}`}
            data-delay={goDuration(r.delayS)}
            className={i === b.ladder.length - 1 ? 'rung rung-current' : 'rung'}
            title={`${localClock(r.since)} → ${localClock(r.until)}${r.exitCode !== undefined ? `, exit ${r.exitCode}` : ''}${r.line !== undefined ? `, line ${r.line}` : ''}`}
          >
            {goDuration(r.delayS)}
          </li>
        ))}
      </ol>
      {b.resets > 0 && (
        <p className="sub">
          The ladder started over after {b.resets} earlier window{b.resets > 1 ? 's' : ''} (a shorter delay:
          the container ran long enough, or the entry expired).
        </p>
      )}
      <p className="sub" data-testid="backoff-rule">
        {backoffRuleWords(b.kind, backoffConstants(b.kind))}
      </p>
      <p className="sub dim" data-testid="backoff-rule-source">
        With the kubelet's default settings: {source} does not state the node's.
      </p>
    </div>
  );
}

/** The inspector, when the trace shows the pod in back-off (one section per container and kind). */
export function ReplayBackoff({ facts }: { facts: PodSnapshot }) {
  if (facts.backoffs.length === 0) return null;
  const word = facts.statusWord.basis === 'unknown' ? '—' : facts.statusWord.value;
  return (
    <section className="panel backoff" data-testid="backoff-inspector" aria-label="back-off inspector">
      <h2>Back-off</h2>
      {facts.backoffs.map((b) => (
        <Window key={`${b.kind}/${b.container}`} b={b} statusWord={word} />
      ))}
    </section>
  );
}
