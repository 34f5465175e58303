/**
 * The model beside the real kubelet (`@syncscope/core/explain`): each step of a pod from any trace read by
 * the kubelet's rules, with agrees / differs / unexplained and counts. See ./explainer.ts.
 */
export { type LogExplanation, NodeExplainers, type NodeExplanation } from './by-node.ts';
export { type ExplainOptions, explainTrace, TraceExplainer } from './explainer.ts';
export {
  type ConfigSettings,
  defaultExplainParams,
  type ExplainParams,
  paramsFromConfig,
} from './params.ts';
export type { KeepSteps } from './pod-explainer.ts';
export type {
  DifferenceKind,
  ExplainCounts,
  ExplainedStep,
  NextSync,
  PodExplanation,
  SourceExplanation,
  Verdict,
} from './types.ts';
export { backoffOutcome, type ClockFormat, goMs, utcClock } from './words.ts';
