/**
 * The chip in a panel's heading that says what the panel knows: loading, empty, live, stale (the stream is
 * gone: grey, with the time it went), behind (the server's word is late: the page or the network lags, not
 * the kubelet), stalled (red, with why: the server's word), replay or observing. Every node-page panel
 * shows one, so a blank chart is never ambiguous.
 */
import { clockText } from './liveness.ts';

export type PanelStateName =
  | 'loading'
  | 'empty'
  | 'live'
  | 'stale'
  | 'behind'
  | 'stalled'
  | 'replay'
  | 'observing';

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
  const word =
    state === 'stale' && staleSince
      ? `stale since ${clockText(staleSince)}`
      : state === 'behind'
        ? 'the page is behind'
        : state;
  return (
    <span className={`panel-state panel-state-${state}`} data-testid={testId} data-state={state}>
      {word}
      {detail ? `: ${detail}` : ''}
    </span>
  );
}
