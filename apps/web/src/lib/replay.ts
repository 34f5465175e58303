/**
 * A replay: an imported trace standing in for the server. buildReplay turns the events into what the
 * query hooks would otherwise fetch — the pods list, the node, the recent trace and each pod's trace — so
 * the same views draw an exported trace with nothing behind them.
 *
 * Pods are rebuilt from the events alone: every pod-scoped event names its pod ("namespace/name"); the
 * first one dates its creation (config.update ADD when present), the newest status.update gives its status,
 * a config.update DELETE its deletionTimestamp and REMOVE drops it. The trace carries no spec, so each
 * container is taken from the statuses (name and image), which is all the node and pod views print. Where the
 * trace states no full status (a kubelet log), core's pod-state reducer works the pods' and containers' states
 * out of the events (lib/pod-facts.ts), each fact marked stated, inferred or unknown.
 * "Now" is frozen at the last event, so ages and the timeline's right edge stay where the trace ends.
 */
import { type Container, type Pod, type PodList, type PodStatus, rfc3339 } from '@syncscope/core/api';
import { defaultKubeletConfiguration, type NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { ImportSummary } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import type { LineSource } from '../kubelet-log/lines.ts';
import { NodeNamer, type NodeSource } from './fleet.ts';
import { podWithFacts } from './pod-facts.ts';
import { type PodSnapshot, PodStateReducer } from './pod-state-core.ts';
import { DEFAULT_TRACE_LIMIT, fromEvents, type TraceState } from './trace-store.ts';

/** What a replay of a kubelet log carries besides the trace (ReplayStore.log). */
export interface KubeletLogReplay {
  summary: ImportSummary;
  lines: LineSource;
  /** every event of every node, for switching nodes */
  all: readonly TraceEvent[];
  /** each node's trace, built while the events arrived (by `node`, '' for none) */
  byNode?: ReadonlyMap<string, TraceState>;
  /** each node's pods and node facts, gathered from the same events as they arrived */
  facts?: ReadonlyMap<string, ReplayFacts>;
  /** the node shown (null: the log names none) */
  node: string | null;
  /** the opened file, kept for Share; absent for a log read back from the server */
  file?: Blob;
  /** the server's id once shared (or when read from the server) */
  sharedId?: string;
}

export interface ReplayStore {
  /** Distinguishes one import from the next in query keys. */
  id: number;
  /** The file name, for the banner. */
  name: string;
  trace: TraceState;
  pods: PodList;
  node: NodeInfo;
  /** Engine time of the last event: the replay's "now". */
  now: number;
  /** What the events state about the node (NodeInfo's defaults are not facts: the health panel reads these). */
  stated: NodeStated;
  /** Pods the events REMOVEd, as they last were (not in `pods`; a pod page still shows them). */
  removed: Pod[];
  /** Set when the replay is a kubelet log (its lines, summary and nodes), not an exported trace. */
  log?: KubeletLogReplay;
}

/** The node facts a replay's events state; null or absent: the source did not say. */
interface NodeStated {
  /** server.start: the runtime's name and version */
  runtime: { name: string; version: string; endpoint: string } | null;
  /** the newest runtime.state */
  runtimeState: { time: number; ready: boolean; errors: string[] } | null;
  /** the newest pleg.relist */
  lastRelist: number | null;
  /** the newest pleg.event (a log's PLEG lines: the kubelet relisted, its health unsaid) */
  lastPlegEvent: number | null;
}

interface PodFacts {
  uid: string;
  namespace: string;
  name: string;
  created: number;
  added: boolean;
  deleted?: number | undefined;
  removed: boolean;
  status?: PodStatus;
}

function containersOf(statuses: PodStatus['containerStatuses']): Container[] {
  return (statuses ?? []).map((cs) => ({ name: cs.name, image: cs.image }));
}

/**
 * What a replay's pods and node are rebuilt from, gathered event by event. A kubelet log's events are added
 * batch by batch as its worker sends them (open.ts), so opening a large log leaves no pass over every event for
 * its last frame; an exported trace adds all its events at once (buildReplay).
 */
export class ReplayFacts implements NodeSource {
  /** the node's name when a line of its own says it, and the time its lines span */
  readonly namer = new NodeNamer();
  private readonly byUID = new Map<string, PodFacts>();
  private start: Extract<TraceEvent, { type: 'server.start' }> | undefined;
  private runtimeState: Extract<TraceEvent, { type: 'runtime.state' }> | undefined;
  private mode: 'generic' | 'evented' = 'generic';
  private lastRelist: number | null = null;
  private lastIteration: number | null = null;
  private lastPlegEvent: number | null = null;
  /** each pod's and container's state as the kubelet would report it, folded event by event */
  private readonly state = new PodStateReducer();

  add(events: readonly TraceEvent[]): this {
    for (const ev of events) {
      this.state.add(ev);
      this.namer.note(ev);
      if (ev.type === 'server.start') this.start = ev;
      else if (ev.type === 'runtime.state') this.runtimeState = ev;
      else if (ev.type === 'pleg.mode') this.mode = ev.mode;
      else if (ev.type === 'pleg.relist') this.lastRelist = ev.time;
      else if (ev.type === 'loop.iteration') this.lastIteration = ev.time;
      else if (ev.type === 'pleg.event') this.lastPlegEvent = ev.time;
      if ('podUID' in ev && ev.podUID && 'pod' in ev && ev.pod) this.notePod(ev, ev.podUID, ev.pod);
    }
    return this;
  }

  private notePod(ev: TraceEvent, uid: string, pod: string): void {
    let f = this.byUID.get(uid);
    if (!f) {
      const slash = pod.indexOf('/');
      const namespace = slash > 0 ? pod.slice(0, slash) : 'default';
      const name = slash > 0 ? pod.slice(slash + 1) : pod;
      f = { uid, namespace, name, created: ev.time, added: false, removed: false };
      this.byUID.set(uid, f);
    }
    if (ev.type === 'config.update') {
      if (ev.op === 'ADD') {
        // a static pod REMOVEd and ADDed again with its UID (a kubelet restart re-reading its manifests) is back
        f.removed = false;
        f.deleted = undefined;
        if (!f.added) {
          f.added = true;
          f.created = ev.time;
        }
      } else if (ev.op === 'DELETE') {
        f.deleted ??= ev.time;
      } else if (ev.op === 'REMOVE') {
        f.removed = true;
      }
    } else if (ev.type === 'status.update') {
      f.status = ev.status;
    }
  }

  /** Every pod's state as the reducer worked it out, removed ones too. */
  snapshots(): PodSnapshot[] {
    return this.state.snapshots();
  }

  /** The pods as the events describe them, in order of first appearance. */
  pods(): Pod[] {
    return [...this.byUID.values()].filter((f) => !f.removed).map((f) => this.podOf(f));
  }

  /** The pods the events REMOVEd, as they were last: a deleted pod's page keeps its name and last state. */
  removedPods(): Pod[] {
    return [...this.byUID.values()].filter((f) => f.removed).map((f) => this.podOf(f));
  }

  private podOf(f: PodFacts): Pod {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: f.name,
        namespace: f.namespace,
        uid: f.uid,
        creationTimestamp: rfc3339(f.created),
        ...(f.deleted !== undefined ? { deletionTimestamp: rfc3339(f.deleted) } : {}),
      },
      spec: {
        containers: containersOf(f.status?.containerStatuses),
        initContainers: containersOf(f.status?.initContainerStatuses),
      },
      ...(f.status ? { status: f.status } : {}),
    };
    // a log's pods get their status from the reducer (a log seldom states one), with each fact's provenance
    const facts = this.state.snapshot(f.uid);
    return facts ? podWithFacts(pod, facts, f.status) : pod;
  }

  /** What the events state about the node, and nothing else. */
  stated(): NodeStated {
    const { start, runtimeState } = this;
    return {
      runtime: start ? { name: start.runtime, version: start.version, endpoint: start.endpoint } : null,
      runtimeState: runtimeState
        ? { time: runtimeState.time, ready: runtimeState.ready, errors: runtimeState.errors }
        : null,
      lastRelist: this.lastRelist,
      lastPlegEvent: this.lastPlegEvent,
    };
  }

  /** The node as the last events left it: runtime from server.start and runtime.state, PLEG from its events. */
  node(now: number): NodeInfo {
    const { start, runtimeState } = this;
    return {
      nodeName: 'replay',
      runtime: {
        name: start?.runtime ?? 'unknown',
        version: start?.version ?? '',
        apiVersion: 'v1',
        endpoint: start?.endpoint ?? '',
        ready: runtimeState?.ready ?? true,
        errors: runtimeState?.errors ?? [],
      },
      simulated: false,
      pleg: { mode: this.mode, healthy: true, lastRelist: this.lastRelist, message: '' },
      sync: { lastIteration: this.lastIteration },
      configuration: defaultKubeletConfiguration,
      clock: { now, speed: 1 },
    };
  }
}

/** The pods as the events describe them, in order of first appearance. */
export function podsFromEvents(events: readonly TraceEvent[]): Pod[] {
  return new ReplayFacts().add(events).pods();
}

let nextReplayId = 1;

export function buildReplay(events: readonly TraceEvent[], name: string): ReplayStore {
  return replayOfTrace(fromEvents(events, Math.max(DEFAULT_TRACE_LIMIT, events.length)), name);
}

/**
 * The replay of a trace already built (a kubelet log's, applied batch by batch as the worker sends it), with
 * the facts gathered from the same events when they were (else gathered here).
 */
export function replayOfTrace(
  trace: TraceState,
  name: string,
  facts: ReplayFacts = new ReplayFacts().add(trace.events),
): ReplayStore {
  const now = trace.events[trace.events.length - 1]?.time ?? 0;
  return {
    id: nextReplayId++,
    name,
    trace,
    pods: { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: facts.pods() },
    node: facts.node(now),
    now,
    stated: facts.stated(),
    removed: facts.removedPods(),
  };
}
