/**
 * The totals of the range dragged on the timeline (lib/timeline-range.ts): its span, SyncPod runs, errors,
 * container restarts and the time in each worker state, with "zoom to range" and "clear" (Esc).
 * Test ids: `range-totals` (data-start / data-end), `range-syncs`, `range-errors`, `range-restarts`,
 * `range-worker-<state>` (data-ms).
 */
import { goDuration, localClock } from '../lib/explain.ts';
import type { RangeTotals as Totals } from '../lib/timeline-range.ts';

const seconds = (ms: number) => goDuration(Math.round(ms) / 1000);

export function RangeTotals({
  totals,
  onZoom,
  onClear,
}: {
  totals: Totals;
  onZoom: () => void;
  onClear: () => void;
}) {
  const t = totals;
  return (
    <div
      className="range-totals"
      data-testid="range-totals"
      data-start={t.start}
      data-end={t.end}
      aria-live="polite"
    >
      <span className="mono">
        {localClock(t.start)} → {localClock(t.end)} ({seconds(t.end - t.start)})
      </span>
      <span>
        <b data-testid="range-syncs">{t.syncs}</b> syncs
      </span>
      <span className={t.errors > 0 ? 'bad' : undefined}>
        <b data-testid="range-errors">{t.errors}</b> errors
      </span>
      <span>
        <b data-testid="range-restarts">{t.restarts}</b> restarts
      </span>
      <span className="dim">{t.steps} steps</span>
      {t.worker.map((w) => (
        <span
          key={w.state}
          className="mono"
          data-testid={`range-worker-${w.state}`}
          data-ms={Math.round(w.ms)}
        >
          {w.state} {seconds(w.ms)}
        </span>
      ))}
      <button type="button" onClick={onZoom} data-testid="range-zoom">
        zoom to range
      </button>
      <button type="button" onClick={onClear} data-testid="range-clear" title="clear (Esc)">
        clear
      </button>
    </div>
  );
}
