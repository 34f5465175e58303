/**
 * What the explanation of a trace holds: per pod, per step (one event of the pod), the model's reading beside
 * the source's, with a verdict; and counts per pod and per source. Browser-safe: no Node imports.
 *
 *   agrees        a rule reads the step, and what the source did is what the rule gives
 *   differs       the source did otherwise: `expected` and `seen` say both values, `rule` the rule
 *   unexplained   no rule reads it (a line the importer kept raw, an event no rule covers)
 */

export type Verdict = 'agrees' | 'differs' | 'unexplained';

/** The kind of difference, for lists and filters. */
export type DifferenceKind =
  | 'restart-early'
  | 'restart-late'
  | 'restart-missing'
  | 'backoff-delay'
  | 'backoff-unexpected'
  | 'duplicate-sync'
  | 'unrequested-kill'
  | 'image-backoff-delay';

/** When the pod's next sync was due after this step, and what brings it. */
export interface NextSync {
  /** earliest and latest (ms since the epoch); equal when exact */
  from: number;
  to: number;
  why: 'PLEG relist' | 'config' | 'back-off requeue' | 'error requeue' | 'back-off end' | 'resync';
}

export interface ExplainedStep {
  seq: number;
  line?: number;
  time: number;
  /** the source's step, in words */
  source: string;
  verdict: Verdict;
  /** the model's reading, one line each (the first is the decision) */
  model: string[];
  /** the kubelet rule that names the action */
  rule?: string;
  /** when the step differs */
  difference?: { kind: DifferenceKind; expected: string; seen: string };
  nextSync?: NextSync;
  /** what the source lacks that the rule needs, and what was assumed instead */
  assumed?: string[];
  /** the back-off delay the rule gives at this step (ms), when one applies */
  backoffMs?: number;
}

/** A step's reading before the pod explainer adds its envelope; `window`: it is a back-off window. */
export type Reading = Omit<ExplainedStep, 'seq' | 'line' | 'time' | 'source'> & { window?: boolean };

export interface ExplainCounts {
  steps: number;
  explained: number;
  agrees: number;
  differs: number;
  unexplained: number;
  /** back-off windows the source shows, and how many of them agree with the rule */
  backoffWindows: number;
  backoffWindowsAgreeing: number;
}

export interface PodExplanation {
  uid: string;
  /** namespace/name */
  pod: string;
  counts: ExplainCounts;
  steps: ExplainedStep[];
}

export interface SourceExplanation {
  /** the settings used and where each came from ("default" when not listed) */
  params: {
    version?: string;
    initialBackOffS: number;
    maxBackOffS: number;
    resetS: number;
    origins: Record<string, string>;
  };
  counts: ExplainCounts;
  pods: PodExplanation[];
}

export function emptyCounts(): ExplainCounts {
  return {
    steps: 0,
    explained: 0,
    agrees: 0,
    differs: 0,
    unexplained: 0,
    backoffWindows: 0,
    backoffWindowsAgreeing: 0,
  };
}

export function addCounts(into: ExplainCounts, c: ExplainCounts): void {
  into.steps += c.steps;
  into.explained += c.explained;
  into.agrees += c.agrees;
  into.differs += c.differs;
  into.unexplained += c.unexplained;
  into.backoffWindows += c.backoffWindows;
  into.backoffWindowsAgreeing += c.backoffWindowsAgreeing;
}
