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
 * One pod's events explained as they grow. `update` reads only the events past the last one it read (the
 * same event objects, at the same place), and indexes only the steps the explainer added since: a live
 * update costs what it adds, not the pod's whole history. Any other change (another pod, older events put
 * in front, a trace replaced) starts again from the first event. The same pod and last seq give back the
 * same value.
 */
export class PodExplainFeed {
  private x = new TraceExplainer({ fmt: localClock });
  private key: string | undefined;
  private n = 0;
  private last: TraceEvent | undefined;
  private steps = 0;
  private readonly bySeq = new Map<number, ExplainedStep>();
  private differs: ExplainedStep[] = [];
  private value: PodExplain = { pod: null, bySeq: this.bySeq, differs: this.differs };
  /** events read since the feed was made (what an update cost) */
  read = 0;

  update(events: readonly TraceEvent[], podKey = ''): PodExplain {
    const grown =
      this.key === podKey && this.n <= events.length && (this.n === 0 || events[this.n - 1] === this.last);
    if (!grown) this.reset(podKey);
    if (grown && this.n === events.length) return this.value;
    for (let i = this.n; i < events.length; i++) this.x.add(events[i] as TraceEvent);
    this.read += events.length - this.n;
    this.n = events.length;
    this.last = events.at(-1);
    const pod = this.x.result().pods[0] ?? null;
    const steps = pod?.steps ?? [];
    let newDiffers = false;
    for (let i = this.steps; i < steps.length; i++) {
      const s = steps[i] as ExplainedStep;
      this.bySeq.set(s.seq, s);
      if (s.verdict === 'differs') {
        this.differs.push(s);
        newDiffers = true;
      }
    }
    this.steps = steps.length;
    // a new array when it grew, so what renders the differences sees the change
    if (newDiffers) this.differs = [...this.differs];
    this.value = { pod, bySeq: this.bySeq, differs: this.differs };
    return this.value;
  }

  private reset(podKey: string): void {
    this.x = new TraceExplainer({ fmt: localClock });
    this.key = podKey;
    this.n = 0;
    this.last = undefined;
    this.steps = 0;
    this.bySeq.clear();
    this.differs = [];
  }
}

/** One pod's events explained (in local time), fed as they grow (PodExplainFeed). */
export function usePodExplain(events: readonly TraceEvent[], podKey = ''): PodExplain {
  const feed = useRef<PodExplainFeed | null>(null);
  feed.current ??= new PodExplainFeed();
  const f = feed.current;
  return useMemo(() => f.update(events, podKey), [f, events, podKey]);
}
