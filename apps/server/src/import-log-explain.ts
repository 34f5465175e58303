/**
 * `import-log FILE --explain`: instead of the trace, the model beside the log (@syncscope/core/explain, one
 * explainer per kubelet the log holds, under the kubelet's defaults and what each kubelet's own lines say) as
 * text on stdout: per node the settings used, per pod its steps explained, agreeing, differing and
 * unexplained and its back-off windows by the rule, then each differing step with its line, the rule and both
 * values; last the log's counts. The events are read as the parser gives them; memory is one explainer per
 * node and the differing steps.
 */
import {
  type ExplainCounts,
  type ExplainedStep,
  goMs,
  type LogExplanation,
  NodeExplainers,
  type NodeExplanation,
} from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';

/** Where the text goes: stdout, or any stream with the same write contract. */
interface Sink {
  write(chunk: string): boolean;
  once(event: 'drain', f: () => void): unknown;
}

const counted = (c: ExplainCounts): string => {
  const windows =
    c.backoffWindows > 0
      ? `; back-off windows ${c.backoffWindowsAgreeing}/${c.backoffWindows} by the rule`
      : '';
  return `${c.steps} steps, ${c.explained} explained: ${c.agrees} agree, ${c.differs} differ; ${c.unexplained} unexplained${windows}`;
};

function settings(n: NodeExplanation): string {
  const p = n.params;
  const origins = Object.entries(p.origins).map(([k, v]) => `${k} from ${v}`);
  return [
    `${p.version ? `kubelet ${p.version}` : 'kubelet version not in the log'}: crash-loop back-off ${goMs(p.initialBackOffS * 1000)} doubling to ${goMs(p.maxBackOffS * 1000)}, reset after ${goMs(p.resetS * 1000)}`,
    ...origins,
  ].join('; ');
}

function differing(s: ExplainedStep): string {
  const at = s.line !== undefined ? `line ${s.line}` : `seq ${s.seq}`;
  const d = s.difference;
  const values = d ? `${d.kind}: expected ${d.expected}; seen ${d.seen}` : 'differs';
  return `    ${at}: ${s.source} — ${values}${s.rule ? ` (${s.rule})` : ''}`;
}

/** The explanation as the command prints it, one string per line. */
export function explanationLines(x: LogExplanation): string[] {
  const out: string[] = [];
  for (const n of x.nodes) {
    out.push(`node ${n.node || '(not named)'}: ${settings(n)}`);
    for (const p of n.pods) {
      out.push(`  ${p.pod}: ${counted(p.counts)}`);
      for (const s of p.steps) if (s.verdict === 'differs') out.push(differing(s));
    }
  }
  out.push(`all: ${counted(x.counts)}`);
  return out;
}

/** The command's output when explaining: the parser's events in, the text out at the end. */
export class ExplainOut {
  private readonly x = new NodeExplainers({ keep: 'differs' });

  constructor(private readonly sink: Sink) {}

  push = (ev: TraceEvent): void => this.x.add(ev);

  async drain(): Promise<void> {}

  async end(): Promise<void> {
    for (const l of explanationLines(this.x.result()))
      if (!this.sink.write(`${l}\n`)) await new Promise<void>((r) => this.sink.once('drain', () => r()));
  }
}
