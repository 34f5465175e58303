/**
 * The simulated node's faults in effect, as the fault panel (FaultPanel.tsx) shows them above its buttons:
 * each with its own clear, and "clear all". Test ids: `fault-active`, `fault-active-count`,
 * `fault-active-item`, `fault-clear-one`, `fault-clear-all`.
 */
import type { ActiveFault } from '../api/node-actions.ts';

const FAULT_NAMES: Record<ActiveFault['kind'], string> = {
  outage: 'runtime outage',
  failNext: 'calls fail',
  latency: 'added latency',
  imageMissing: 'image missing',
  slowPull: 'slow pull',
};

/** The faults in effect, each with its clear, and "clear all" (which ends every one). */
export function ActiveFaults({
  items,
  onClear,
}: {
  items: ActiveFault[] | undefined;
  onClear: (one?: ActiveFault) => void;
}) {
  return (
    <div className="fault-active" data-testid="fault-active" aria-live="polite">
      <h3>
        In effect{' '}
        <span className="dim mono" data-testid="fault-active-count">
          {items ? items.length : '…'}
        </span>
      </h3>
      {items && items.length === 0 && <p className="dim">no fault is in effect</p>}
      {items && items.length > 0 && (
        <ul>
          {items.map((f) => (
            <li key={`${f.kind}/${f.target ?? ''}`} data-testid="fault-active-item" data-kind={f.kind}>
              <span className="tag">{FAULT_NAMES[f.kind]}</span> <span className="mono">{f.detail}</span>{' '}
              <button
                type="button"
                onClick={() => onClear(f)}
                data-testid="fault-clear-one"
                aria-label={`clear ${FAULT_NAMES[f.kind]}${f.target ? ` ${f.target}` : ''}`}
              >
                clear
              </button>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        onClick={() => onClear()}
        disabled={!items || items.length === 0}
        data-testid="fault-clear-all"
      >
        clear all faults
      </button>
    </div>
  );
}
