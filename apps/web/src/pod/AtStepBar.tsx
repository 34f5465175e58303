/**
 * The bar over the pod's panels: "now" while the history follows live, and while a step of it is
 * selected "at step N, hh:mm:ss" (the panels below then show the pod at that step) with "back to now"
 * (or End). It keeps its height either way, so selecting a step does not move the page.
 * Test ids: `at-step` (while a step is selected), `at-step-back`, `at-now`.
 */
import { localClock } from '../lib/explain.ts';
import { liveWord, useConnection } from '../node/connection.ts';
import { useReplay } from '../replay/context.ts';
import type { AtStep } from './PodHistory.tsx';

export function AtStepBar({ at }: { at: AtStep | null }) {
  const { staleSince } = useConnection();
  // a replay has no live edge: its panels show the pod at the end of what it read
  const replay = useReplay();
  const end = replay ? `at the end of the ${replay.log ? 'log' : 'trace'}` : liveWord(staleSince);
  if (!at)
    return (
      <div className="at-step at-now" data-testid="at-now">
        <span className="dim">
          {replay ? 'the panels below show the pod' : 'now: the panels below follow the pod'} {end} · select a
          step to see the pod then
        </span>
      </div>
    );
  const ev = at.step.event;
  return (
    <div className="at-step" data-testid="at-step" data-seq={ev.seq} role="status">
      <span>
        at step <b>{at.step.index + 1}</b>, <b className="mono">{localClock(ev.time)}</b>
        <span className="dim"> · seq {ev.seq} · the panels below show the pod then</span>
      </span>
      <button type="button" onClick={at.back} data-testid="at-step-back" title="back to now (End)">
        back to now
      </button>
    </div>
  );
}
