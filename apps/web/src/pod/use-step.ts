/**
 * The selected step of a pod's history, kept in the URL (`?step=<seq>`, written with replaceState so the
 * route does not change). No step in the URL means "live": the latest event, following new ones.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useCallback, useEffect, useState } from 'react';
import { indexOfSeq } from '../lib/step.ts';
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
}

function writeStep(seq: number | null) {
  const hash = withStepParam(window.location.hash, seq);
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash || '#/');
}

export function useStep(events: readonly TraceEvent[]): StepSelection {
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
  return {
    index,
    live: pinned === null,
    go,
    goSeq: (seq) => pin(seq),
    first: () => go(0),
    prev: () => go(index - 1),
    next: () => go(index + 1),
    last: () => pin(null),
  };
}
