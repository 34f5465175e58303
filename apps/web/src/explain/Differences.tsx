/**
 * Where the pod's source and the model differ: the counts (steps explained, agreeing, differing,
 * unexplained; back-off windows read by the rule), a strip over the pod's time with a mark per differing
 * step, and the list of them with both values. A mark or a row selects its step (the `step` of the URL, as
 * the step-through keeps it); the key `d` (while no text field has focus) selects the next difference after
 * the selected step, from the first again past the last.
 * Test ids: `explain-summary`, `explain-strip`, `diff-mark-<seq>`, `diff-list`, `diff-<seq>`.
 */
import type { ExplainedStep } from '@syncscope/core/explain';
import { useEffect, useRef } from 'react';
import { localClock } from '../lib/explain.ts';
import { parseStepParam, withStepParam } from '../lib/step-route.ts';
import type { PodExplain } from './context.ts';
import './explain.css';

/** Selects a step the way the step-through reads it: a hash change it listens to. */
function goStep(seq: number) {
  window.location.hash = withStepParam(window.location.hash, seq);
}

/** The next differing step after `seq` (null: live, the end), wrapping to the first. */
function nextDifference(differs: readonly ExplainedStep[], seq: number | null): ExplainedStep | undefined {
  if (differs.length === 0) return undefined;
  return (seq === null ? undefined : differs.find((s) => s.seq > seq)) ?? differs[0];
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el.tagName === 'INPUT') return !/^(checkbox|radio|button|submit)$/.test((el as HTMLInputElement).type);
  return el.isContentEditable || /^(TEXTAREA|SELECT)$/.test(el.tagName);
}

export function Differences({ x, start, end }: { x: PodExplain; start: number; end: number }) {
  const differs = useRef(x.differs);
  differs.current = x.differs;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'd' || typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const next = nextDifference(differs.current, parseStepParam(window.location.hash));
      if (!next) return;
      e.preventDefault();
      goStep(next.seq);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const c = x.pod?.counts;
  if (!c) return null;
  const span = Math.max(1, end - start);
  return (
    <div className="explain" data-testid="explain">
      <p className="sub" data-testid="explain-summary">
        <span className="k">model vs source</span>
        {c.explained} of {c.steps} steps explained: <span className="ok">{c.agrees} agree</span>,{' '}
        <span className={c.differs ? 'bad' : undefined}>{c.differs} differ</span>, {c.unexplained} unexplained
        {c.backoffWindows > 0 &&
          ` · back-off windows ${c.backoffWindowsAgreeing}/${c.backoffWindows} by the rule`}
        {c.differs > 0 && <span className="dim"> · d: next difference</span>}
      </p>
      {x.differs.length > 0 && (
        <>
          <div
            className="explain-strip"
            data-testid="explain-strip"
            title="differing steps over the pod's time"
          >
            {x.differs.map((s) => (
              <button
                key={s.seq}
                type="button"
                className="diff-mark"
                data-testid={`diff-mark-${s.seq}`}
                style={{ left: `${(100 * (s.time - start)) / span}%` }}
                title={`${localClock(s.time)} ${s.source}: ${s.difference?.kind ?? ''}`}
                aria-label={`difference at ${localClock(s.time)}: ${s.source}`}
                onClick={() => goStep(s.seq)}
              />
            ))}
          </div>
          <ol className="diff-list" data-testid="diff-list">
            {x.differs.map((s) => (
              <li key={s.seq} data-testid={`diff-${s.seq}`}>
                <button type="button" className="linkish" onClick={() => goStep(s.seq)}>
                  {localClock(s.time)}
                  {s.line !== undefined ? ` line ${s.line}` : ''} {s.source}
                </button>
                <span className="bad"> {s.difference?.kind}</span>
                <span className="sub">
                  {' '}
                  expected {s.difference?.expected}; seen {s.difference?.seen}
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}
