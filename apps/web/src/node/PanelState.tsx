/**
 * The chip in a panel's heading that says what the panel knows: loading, empty, live, stale (the stream is
 * gone: grey, with the time it went), stalled (red, with why), replay or observing. Every node-page panel
 * shows one, so a blank chart is never ambiguous.
 */
import { clockText } from './liveness.ts';

export type PanelStateName = 'loading' | 'empty' | 'live' | 'stale' | 'stalled' | 'replay' | 'observing';

export function PanelState({
  state,
  staleSince,
  detail,
  testId,
}: {
  state: PanelStateName;
  staleSince?: number | null;
  /** shown after the word, e.g. the stalled beat's last time */
  detail?: string;
  testId?: string;
}) {
  const word = state === 'stale' && staleSince ? `stale since ${clockText(staleSince)}` : state;
  return (
    <span className={`panel-state panel-state-${state}`} data-testid={testId} data-state={state}>
      {word}
      {detail ? `: ${detail}` : ''}
    </span>
  );
}
