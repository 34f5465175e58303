/**
 * A log of several kubelets explained one kubelet at a time: a pod is its node and its UID (a static pod has
 * the same UID on every master that runs its manifest), and each kubelet has its own version and feature gates.
 * NodeExplainers keeps one TraceExplainer per node an event names ('' for none) and gives each pod's result
 * with its node. Fed in seq order; O(1) amortised per event, memory one explainer per node plus what `keep`
 * keeps. Browser-safe: no Node imports.
 */
import type { TraceEvent } from '../events/trace.ts';
import { type ExplainOptions, TraceExplainer } from './explainer.ts';
import { addCounts, emptyCounts, type SourceExplanation } from './types.ts';

/** One node's explanation; `node` is the importer's key for it ('' when the lines name none). */
export interface NodeExplanation extends SourceExplanation {
  node: string;
}

export interface LogExplanation {
  /** every node's counts summed */
  counts: SourceExplanation['counts'];
  nodes: NodeExplanation[];
}

export class NodeExplainers {
  private readonly byNode = new Map<string, TraceExplainer>();

  constructor(private readonly opts: ExplainOptions = {}) {}

  /** One event, in seq order. */
  add(ev: TraceEvent): void {
    const key = ev.node ?? '';
    let x = this.byNode.get(key);
    if (!x) {
      x = new TraceExplainer(this.opts);
      this.byNode.set(key, x);
    }
    x.add(ev);
  }

  /** Every node in order of its first event, and the counts of all. */
  result(): LogExplanation {
    const counts = emptyCounts();
    const nodes: NodeExplanation[] = [];
    for (const [node, x] of this.byNode) {
      const r = x.result();
      addCounts(counts, r.counts);
      nodes.push({ node, ...r });
    }
    return { counts, nodes };
  }
}
