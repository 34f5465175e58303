/**
 * Each pod's explanation counts in a kubelet log opened as a replay: the model beside the log
 * (@syncscope/core/explain, one explainer per kubelet: a pod is its node and its UID) over the events the page
 * already holds, counts only. Worked out once per log, on first use; linear in the events, and the memory is
 * one count record per pod. The parameters are the kubelet's defaults and what each kubelet's own lines say
 * (its version, its feature gates), as the server's explain route has them without a --config.
 */
import { type ExplainCounts, NodeExplainers } from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';

/** By node key ('' for a line without one), by pod UID. */
export type LogCounts = ReadonlyMap<string, ReadonlyMap<string, ExplainCounts>>;

const KNOWN = new WeakMap<readonly TraceEvent[], LogCounts>();

/** The counts of every pod of the log whose events are `all`. */
export function logExplainCounts(all: readonly TraceEvent[]): LogCounts {
  const known = KNOWN.get(all);
  if (known) return known;
  const x = new NodeExplainers({ keep: 'none' });
  for (const ev of all) x.add(ev);
  const out: LogCounts = new Map(
    x.result().nodes.map((n) => [n.node, new Map(n.pods.map((p) => [p.uid, p.counts]))]),
  );
  KNOWN.set(all, out);
  return out;
}

/** One pod's counts: on `node` when it is known, else on whichever node has the pod. */
export function podCounts(counts: LogCounts, node: string | null, uid: string): ExplainCounts | undefined {
  if (node !== null) return counts.get(node)?.get(uid);
  for (const pods of counts.values()) {
    const c = pods.get(uid);
    if (c) return c;
  }
  return undefined;
}

/** "2 of 40 explained steps differ from the model's reading; 38 agree (1 unexplained)", for a count's title. */
export function countsWords(c: ExplainCounts): string {
  const un = c.unexplained > 0 ? ` (${c.unexplained} unexplained)` : '';
  return `${c.differs} of ${c.explained} explained steps differ from the model's reading; ${c.agrees} agree${un}`;
}
