/**
 * The selected step of a pod's history, kept in the URL (`?step=<seq>`, written with replaceState so the
 * route does not change). No step in the URL means "live": the latest event, following new ones.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useCallback, useEffect, useState } from 'react';
import { indexOfSeq } from '../lib/step.ts';
import { isErrorStep, seekStep } from '../lib/step-filter.ts';
import { parseStepParam, withStepParam } from '../lib/step-route.ts';

export interface StepSelection {
  /** Index into the events (-1 when there are none). */
  index: number;
  live: boolean;
  go: (index: number) => void;
  goSeq: (seq: number) => void;
  first: () => void;
  prev: () => void;
  next: () => void;
  /** Back to live. */
  last: () => void;
  /** The next event that reports a failure, of any kind; false when there is none after the step. */
  nextError: () => boolean;
  /** Whether an error follows the selected step. */
  hasNextError: boolean;
}

function writeStep(seq: number | null) {
  const hash = withStepParam(window.location.hash, seq);
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash || '#/');
}

const always = () => true;

/**
 * `visible` picks the steps that first / prev / next visit (the kinds chosen in the step filter); a step
 * selected otherwise (a click on the timeline, the URL) may be of any kind.
 */
export function useStep(
  events: readonly TraceEvent[],
  visible: (ev: TraceEvent) => boolean = always,
): StepSelection {
  const [pinned, setPinned] = useState<number | null>(() => parseStepParam(window.location.hash));
  useEffect(() => {
    const onHash = () => setPinned(parseStepParam(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  const n = events.length;
  const index = n === 0 ? -1 : pinned === null ? n - 1 : indexOfSeq(events, pinned);
  const pin = useCallback((seq: number | null) => {
    setPinned(seq);
    writeStep(seq);
  }, []);
  const go = useCallback(
    (i: number) => {
      const ev = events[Math.max(0, Math.min(events.length - 1, i))];
      if (ev) pin(ev.seq);
    },
    [events, pin],
  );
  const seek = (from: number, dir: 1 | -1, ok: (ev: TraceEvent) => boolean) => {
    const i = seekStep(events, from, dir, ok);
    if (i >= 0) go(i);
    return i >= 0;
  };
  const nextErrorIndex = seekStep(events, index + 1, 1, isErrorStep);
  return {
    index,
    live: pinned === null,
    go,
    goSeq: (seq) => pin(seq),
    first: () => void seek(0, 1, visible),
    prev: () => void seek(index - 1, -1, visible),
    next: () => void seek(index + 1, 1, visible),
    last: () => pin(null),
    nextError: () => seek(index + 1, 1, isErrorStep),
    hasNextError: nextErrorIndex >= 0,
  };
}
