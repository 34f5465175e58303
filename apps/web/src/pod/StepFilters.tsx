/**
 * The step filter: one checkbox per step kind (the kinds ← → and |◀ visit) and "next error", which jumps
 * to the next event that reports a failure whatever its kind. Test ids: `step-filter-<kind>`,
 * `step-next-error`.
 */
import { STEP_KIND_LABEL, STEP_KINDS, type StepKind } from '../lib/step-filter.ts';
import type { StepSelection } from './use-step.ts';

export function StepFilters({
  kinds,
  onKinds,
  counts,
  sel,
}: {
  kinds: ReadonlySet<StepKind>;
  onKinds: (k: Set<StepKind>) => void;
  /** How many of the pod's steps are of each kind. */
  counts: Record<StepKind, number>;
  sel: StepSelection;
}) {
  const toggle = (k: StepKind) => {
    const next = new Set(kinds);
    if (next.has(k)) next.delete(k);
    else next.add(k);
    onKinds(next);
  };
  return (
    <fieldset className="step-filters" data-testid="step-filters">
      <legend className="dim">step through</legend>
      {STEP_KINDS.map((k) => (
        <label key={k}>
          <input
            type="checkbox"
            checked={kinds.has(k)}
            onChange={() => toggle(k)}
            data-testid={`step-filter-${k}`}
          />
          {STEP_KIND_LABEL[k]} <span className="dim mono">{counts[k]}</span>
        </label>
      ))}
      <button
        type="button"
        onClick={() => sel.nextError()}
        disabled={!sel.hasNextError}
        data-testid="step-next-error"
        title="next error (e)"
      >
        next error ▶
      </button>
    </fieldset>
  );
}
