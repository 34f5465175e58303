/**
 * TraceExplainer: the model beside the real kubelet. Fed the events of one source (the engine's trace, an
 * imported kubelet log, an observed node) in seq order, it folds them into the pod-state model
 * (../pod-state) and reads every pod's every step by the kubelet rule that covers it (./pod-explainer.ts),
 * marking where the source did otherwise. O(1) amortised per event; the steps kept are bounded by `keep`.
 *
 *   const x = new TraceExplainer({ params: paramsFromConfig(config) });
 *   for (const ev of events) x.add(ev);
 *   x.result()         // per pod: steps (model beside source, verdict), counts; per source: counts, params
 *
 * The log's own settings (its `Kubelet version` / `Version:` line, its `FLAG: --feature-gates` line) are
 * read as they come and set the parameters over the given ones; a kubelet logs them at its start, before
 * any pod. Browser-safe: no Node imports.
 */
import type { TraceEvent } from '../events/trace.ts';
import { PodStateReducer } from '../pod-state/reducer.ts';
import type { PodAt } from './backoff-steps.ts';
import {
  defaultExplainParams,
  type ExplainParams,
  type LogSettings,
  paramsFromLog,
  readLogSetting,
} from './params.ts';
import { type KeepSteps, PodExplainer } from './pod-explainer.ts';
import { addCounts, emptyCounts, type SourceExplanation } from './types.ts';
import { type ClockFormat, utcClock } from './words.ts';

export interface ExplainOptions {
  /** the parameters before the log's own settings: defaults, or the server's --config (paramsFromConfig) */
  params?: ExplainParams;
  /** how times are written in the words (UTC HH:MM:SS by default) */
  fmt?: ClockFormat;
  /** which steps are kept (all by default); the counts are always whole */
  keep?: KeepSteps;
  /** only this pod's steps are read (by UID); the model still folds every event */
  podUID?: string;
}

export class TraceExplainer {
  private readonly reducer = new PodStateReducer();
  private readonly pods = new Map<string, PodExplainer>();
  private readonly base: ExplainParams;
  /** one object shared by every pod: the log's settings update it in place */
  private readonly params: ExplainParams;
  private readonly settings: LogSettings = { gates: new Map() };
  private readonly fmt: ClockFormat;
  private readonly keep: KeepSteps;
  /** the pod of the event being read, and how its explainer reads the model's state of it */
  private uid = '';
  private readonly at: PodAt = {
    containers: () => this.reducer.containers(this.uid) as ReturnType<PodAt['containers']>,
    snapshot: () => this.reducer.snapshot(this.uid) as ReturnType<PodAt['snapshot']>,
  };

  constructor(private readonly opts: ExplainOptions = {}) {
    this.base = opts.params ?? defaultExplainParams();
    this.params = { ...this.base, origins: { ...this.base.origins } };
    this.fmt = opts.fmt ?? utcClock;
    this.keep = opts.keep ?? 'all';
  }

  /** One event, in seq order. */
  add(ev: TraceEvent): void {
    this.reducer.add(ev);
    if (ev.type === 'log.raw' && !ev.podUID) {
      if (readLogSetting(ev.text, this.settings))
        Object.assign(this.params, paramsFromLog(this.settings, this.base));
      return;
    }
    const uid = 'podUID' in ev ? ev.podUID : undefined;
    const name = 'pod' in ev ? ev.pod : undefined;
    if (!uid || !name) return;
    if (this.opts.podUID !== undefined && uid !== this.opts.podUID) return;
    let p = this.pods.get(uid);
    if (!p) {
      p = new PodExplainer(uid, name, this.params, this.fmt, this.keep);
      this.pods.set(uid, p);
    }
    this.uid = uid;
    p.add(ev, this.at);
  }

  addAll(events: Iterable<TraceEvent>): this {
    for (const ev of events) this.add(ev);
    return this;
  }

  /** The explanation so far: every pod in order of first appearance, and the source's counts. */
  result(): SourceExplanation {
    const counts = emptyCounts();
    const pods = [...this.pods.values()].map((p) => p.out);
    for (const p of pods) addCounts(counts, p.counts);
    const p = this.params;
    return {
      params: {
        ...(p.version ? { version: p.version } : {}),
        initialBackOffS: p.initialBackOffMs / 1000,
        maxBackOffS: p.maxBackOffMs / 1000,
        resetS: p.resetMs / 1000,
        origins: { ...p.origins } as Record<string, string>,
      },
      counts,
      pods,
    };
  }
}

/** The explanation of a whole trace in memory (tests, the web's pod view). */
export function explainTrace(events: Iterable<TraceEvent>, opts: ExplainOptions = {}): SourceExplanation {
  return new TraceExplainer(opts).addAll(events).result();
}
