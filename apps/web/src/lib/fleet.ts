/**
 * A log of many kubelets as a fleet: each node with its name, its pods, its pods in trouble and the time its
 * lines span, and one list of the pods in trouble across every node (core's podTrouble over each node's
 * reducer), newest trouble first.
 *
 * A node's name: the importer keys a node by the host its lines came behind (journald, syslog, `host: `, glog's
 * `Running on machine`), else by its process ("pid 4601"). A process-keyed node is named here when one of its
 * own lines names the node it runs on (NodeNamer): the kubelet names its node in its node-status lines
 * (`node="…"`, `… event message for node …`, `registered node …`), in its API credentials
 * (`User "system:node:…"`, `no relationship found between node "…"`) and in Events about the Node object.
 * Browser-safe; linear in the events, bounded by one name per node.
 */
import type { ImportSummary } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { type PodSnapshot, podTrouble, type Trouble } from './pod-state-core.ts';

/** The patterns a kubelet's own lines name its node by; the first group is the name. */
const NODE_NAMED_BY = [
  /User \\?"system:node:([a-z0-9][-a-z0-9.]*)\\?"/,
  /no relationship found between node \\?"([a-z0-9][-a-z0-9.]*)\\?"/,
  /event message for node \\?"?([a-z0-9][-a-z0-9.]*)/,
  /(?:Attempting to register|Successfully registered) node \\?"?([a-z0-9][-a-z0-9.]*)/,
  /Kind:"Node", Namespace:"", Name:"([a-z0-9][-a-z0-9.]*)"/,
  /^"(?:Recording event message for node|Attempting to register node|Successfully registered node|Node became not ready|Updating node status)".*\bnode="([a-z0-9][-a-z0-9.]*)"/,
] as const;

/** The node a kubelet line names as its own, if it names one. */
function nodeNamedIn(text: string): string | undefined {
  if (!text.includes('node')) return undefined;
  for (const re of NODE_NAMED_BY) {
    const m = re.exec(text);
    if (m?.[1]) return m[1];
  }
  return undefined;
}

/** A process-keyed node's name, once a line of its own names it. */
export class NodeNamer {
  named: { name: string; line?: number } | undefined;
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;

  note(ev: TraceEvent): void {
    if (ev.time < this.first) this.first = ev.time;
    if (ev.time > this.last) this.last = ev.time;
    if (this.named || ev.type !== 'log.raw' || !ev.node?.startsWith('pid ')) return;
    const name = nodeNamedIn(ev.text);
    if (name) this.named = ev.origin ? { name, line: ev.origin.line } : { name };
  }
}

/** What a node's trace gives the fleet view: its namer and its pods' snapshots. */
export interface NodeSource {
  namer: NodeNamer;
  snapshots(): PodSnapshot[];
}

export interface FleetNode {
  /** the importer's key: the host, or "pid <n>" */
  key: string;
  /** the name shown: the host, the name a line gave, or the process */
  name: string;
  namedBy: 'host' | 'line' | 'process';
  /** the line that named it (namedBy 'line') */
  line?: number;
  pods: number;
  inTrouble: number;
  first: number;
  last: number;
}

export interface TroublePod {
  node: FleetNode;
  pod: PodSnapshot;
  troubles: Trouble[];
  /** lower-cased node, pod, STATUS and trouble words, for the search */
  haystack: string;
}

export interface Fleet {
  nodes: FleetNode[];
  trouble: TroublePod[];
  /** the newest line of the whole log: "last seen" counts back from it */
  end: number;
}

const PROCESS_KEY = /^pid \d+$|^unknown node$/;

function fleetNode(
  key: string,
  src: NodeSource | undefined,
  pods: PodSnapshot[],
  inTrouble: number,
): FleetNode {
  const named = src?.namer.named;
  const byProcess = PROCESS_KEY.test(key);
  const base = {
    key,
    pods: pods.filter((p) => !p.removed).length,
    inTrouble,
    first: src?.namer.first ?? 0,
    last: src?.namer.last ?? 0,
  };
  if (!byProcess) return { ...base, name: key, namedBy: 'host' };
  if (named)
    return {
      ...base,
      name: named.name,
      namedBy: 'line',
      ...(named.line !== undefined ? { line: named.line } : {}),
    };
  return { ...base, name: key, namedBy: 'process' };
}

/** The fleet of a log: its nodes (in the summary's order) and their pods in trouble, newest trouble first. */
export function fleetOf(summary: ImportSummary, sources: ReadonlyMap<string, NodeSource>): Fleet {
  const keys = summary.nodes.length > 0 ? summary.nodes : [...sources.keys()];
  const nodes: FleetNode[] = [];
  const trouble: TroublePod[] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const key of keys) {
    const src = sources.get(key);
    const pods = src?.snapshots() ?? [];
    const mine: { pod: PodSnapshot; troubles: Trouble[] }[] = [];
    for (const pod of pods) {
      const troubles = podTrouble(pod);
      if (troubles.length > 0) mine.push({ pod, troubles });
    }
    const node = fleetNode(key, src, pods, mine.length);
    nodes.push(node);
    if (node.last > end) end = node.last;
    for (const { pod, troubles } of mine) {
      const word = pod.statusWord.basis === 'unknown' ? '' : pod.statusWord.value;
      const haystack = [node.name, node.key, pod.pod, word, ...troubles.map((t) => t.words)]
        .join('\n')
        .toLowerCase();
      trouble.push({ node, pod, troubles, haystack });
    }
  }
  trouble.sort((a, b) => b.pod.lastSeen - a.pod.lastSeen);
  return { nodes, trouble, end: Number.isFinite(end) ? end : 0 };
}

/** The pods in trouble whose node, name, STATUS or trouble contain `search` (any case), of `kind` if given. */
export function filterTrouble(list: readonly TroublePod[], search: string, kind = ''): TroublePod[] {
  const needle = search.trim().toLowerCase();
  return list.filter(
    (t) => (!needle || t.haystack.includes(needle)) && (!kind || t.troubles.some((x) => x.kind === kind)),
  );
}

/** How a node's name is known, for its title. */
export function namedByWords(n: FleetNode): string {
  if (n.namedBy === 'host') return 'the host its lines came from';
  if (n.namedBy === 'line')
    return `named by ${n.line !== undefined ? `line ${n.line}` : 'a line'} of its kubelet (${n.key})`;
  return 'no line names its host: named by its kubelet process';
}
