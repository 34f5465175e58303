/**
 * Which node a line belongs to. A line with a host (journald/syslog prefix, `host: `) belongs to that host; a
 * bare klog line to its process, "pid <n>". Several kubelets interleaved in one file are several nodes: the
 * same pod name on two nodes is two pods. A host that appears under the pid another host had (the node was
 * renamed while the kubelet ran, as in an OpenShift bootstrap) stays the node it was; pid 1 (a kubelet in a
 * container) is never taken as evidence of that.
 */
import type { Prefix } from './prefix.ts';
import { NodeState } from './state.ts';

export class Nodes {
  private readonly byHost = new Map<string, NodeState>();
  private readonly byPid = new Map<number, NodeState>();
  private unknown: NodeState | undefined;
  readonly all: NodeState[] = [];

  private readonly named = new Map<string, NodeState>();
  private lastKey: string | undefined;
  private lastPid: number | undefined;
  private lastNode: NodeState | undefined;

  private make(name: string): NodeState {
    const n = new NodeState(name);
    this.all.push(n);
    this.named.set(name, n);
    return n;
  }

  byName(name: string): NodeState | undefined {
    return this.named.get(name);
  }

  /** the node of a line; the last answer is remembered, lines come in runs from one kubelet */
  of(prefix: Prefix, pid: number | undefined): NodeState {
    if (this.lastNode && prefix.host === this.lastKey && (prefix.pid ?? pid) === this.lastPid)
      return this.lastNode;
    const n = this.find(prefix, pid);
    this.lastKey = prefix.host;
    this.lastPid = prefix.pid ?? pid;
    this.lastNode = n;
    return n;
  }

  private find(prefix: Prefix, pid: number | undefined): NodeState {
    const p = prefix.pid ?? pid;
    const host = prefix.host;
    if (host !== undefined) {
      let n = this.byHost.get(host);
      if (!n) {
        const same = p !== undefined && p > 1 ? this.byPid.get(p) : undefined;
        n = same ?? this.make(host);
        this.byHost.set(host, n);
      }
      if (p !== undefined && p > 1 && !this.byPid.has(p)) this.byPid.set(p, n);
      return n;
    }
    if (p !== undefined) {
      let n = this.byPid.get(p);
      if (!n) {
        n = this.make(`pid ${p}`);
        this.byPid.set(p, n);
      }
      return n;
    }
    this.unknown ??= this.make('unknown node');
    return this.unknown;
  }
}
