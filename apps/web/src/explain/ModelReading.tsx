/**
 * The model's reading of one step, beside the source's line in the step panel: the verdict, what the
 * kubelet's rules give (the decision, the back-off, when the next sync was due), the rule, and for a
 * difference both values; what the source lacks and what was assumed instead, folded.
 * Test ids: `step-model`, `step-verdict`, `step-difference`, `step-next-sync`, `step-assumed`.
 */
import type { ExplainedStep } from '@syncscope/core/explain';
import { goDuration, localClock } from '../lib/explain.ts';

const VERDICT_CLASS = { agrees: 'ok', differs: 'bad', unexplained: 'dim' } as const;

export function ModelReading({ step }: { step: ExplainedStep | undefined }) {
  if (!step) return null;
  return (
    <div
      className={`step-model step-model-${step.verdict}`}
      data-testid="step-model"
      data-verdict={step.verdict}
    >
      <p className="step-summary">
        <span className="k">model</span>
        <span className={VERDICT_CLASS[step.verdict]} data-testid="step-verdict">
          {step.verdict}
        </span>
        {step.backoffMs !== undefined && (
          <span className="mono dim"> · back-off {goDuration(step.backoffMs / 1000)}</span>
        )}
      </p>
      {step.verdict === 'unexplained' && <p className="sub">no rule of the model reads this step</p>}
      {step.model.length > 0 && (
        <ul>
          {step.model.map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines, never reordered
            <li key={i}>{l}</li>
          ))}
        </ul>
      )}
      {step.difference && (
        <p className="bad" data-testid="step-difference">
          expected {step.difference.expected}; the source: {step.difference.seen}
        </p>
      )}
      {step.nextSync && (
        <p className="sub" data-testid="step-next-sync">
          next sync ({step.nextSync.why}){' '}
          {step.nextSync.from === step.nextSync.to
            ? `at ${localClock(step.nextSync.from)}`
            : `between ${localClock(step.nextSync.from)} and ${localClock(step.nextSync.to)}`}
        </p>
      )}
      {step.rule && <p className="sub">rule: {step.rule}</p>}
      {step.assumed && step.assumed.length > 0 && (
        <details data-testid="step-assumed">
          <summary className="sub">not in the source: {step.assumed.length} assumed</summary>
          <ul className="sub">
            {step.assumed.map((a) => (
              <li key={a}>{a}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
