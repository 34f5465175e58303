/**
 * The pod's explanation (@syncscope/core/explain over the pod's events, as the pod view holds them): the
 * model's reading of each step beside the source's, for the step panel and the differences list. Provided
 * by the pod view; null outside it.
 */
import { type ExplainedStep, type PodExplanation, TraceExplainer } from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';
import { createContext, useContext, useMemo, useRef } from 'react';
import { localClock } from '../lib/explain.ts';

export interface PodExplain {
  pod: PodExplanation | null;
  bySeq: ReadonlyMap<number, ExplainedStep>;
  /** the differing steps, in trace order */
  differs: readonly ExplainedStep[];
}

export const ExplainContext = createContext<PodExplain | null>(null);

/** The explanation of the step with this seq, when the pod view explains its pod. */
export function useStepReading(seq: number): ExplainedStep | undefined {
  return useContext(ExplainContext)?.bySeq.get(seq);
}

/**
 * One pod's events explained (in local time). Live, the events grow at their end: only the new ones are
 * read; any other change reads them all again.
 */
export function usePodExplain(events: readonly TraceEvent[]): PodExplain {
  const fed = useRef<{ x: TraceExplainer; last: TraceEvent | undefined; n: number } | null>(null);
  return useMemo(() => {
    let f = fed.current;
    const grown = f !== null && f.n <= events.length && (f.n === 0 || events[f.n - 1] === f.last);
    if (!f || !grown) f = { x: new TraceExplainer({ fmt: localClock }), last: undefined, n: 0 };
    for (let i = f.n; i < events.length; i++) f.x.add(events[i] as TraceEvent);
    f.n = events.length;
    f.last = events.at(-1);
    fed.current = f;
    const pod = f.x.result().pods[0] ?? null;
    const bySeq = new Map<number, ExplainedStep>();
    for (const s of pod?.steps ?? []) bySeq.set(s.seq, s);
    return { pod, bySeq, differs: (pod?.steps ?? []).filter((s) => s.verdict === 'differs') };
  }, [events]);
}
