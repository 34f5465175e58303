/**
 * A replay: an imported trace standing in for the server. buildReplay turns the events into what the
 * query hooks would otherwise fetch — the pods list, the node, the recent trace and each pod's trace — so
 * the same views draw an exported trace with nothing behind them.
 *
 * Pods are rebuilt from the events alone: every pod-scoped event names its pod ("namespace/name"); the
 * first one dates its creation (config.update ADD when present), the newest status.update gives its status,
 * a config.update DELETE its deletionTimestamp and REMOVE drops it. The trace carries no spec, so each
 * container is taken from the statuses (name and image), which is all the node and pod views print.
 * "Now" is frozen at the last event, so ages and the timeline's right edge stay where the trace ends.
 */
import { type Container, type Pod, type PodList, type PodStatus, rfc3339 } from '@syncscope/core/api';
import { defaultKubeletConfiguration, type NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import type { KubeletLogReplay } from '../kubelet-log/open.ts';
import { DEFAULT_TRACE_LIMIT, fromEvents, type TraceState } from './trace-store.ts';

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
  /** Set when the replay is a kubelet log (its lines, summary and nodes), not an exported trace. */
  log?: KubeletLogReplay;
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

/** The pods as the events describe them, in order of first appearance. */
export function podsFromEvents(events: readonly TraceEvent[]): Pod[] {
  const facts = new Map<string, PodFacts>();
  for (const ev of events) {
    if (!('podUID' in ev) || !ev.podUID || !('pod' in ev) || !ev.pod) continue;
    let f = facts.get(ev.podUID);
    if (!f) {
      const slash = ev.pod.indexOf('/');
      const namespace = slash > 0 ? ev.pod.slice(0, slash) : 'default';
      const name = slash > 0 ? ev.pod.slice(slash + 1) : ev.pod;
      f = { uid: ev.podUID, namespace, name, created: ev.time, added: false, removed: false };
      facts.set(ev.podUID, f);
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
  const pods: Pod[] = [];
  for (const f of facts.values()) {
    if (f.removed) continue;
    pods.push({
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
    });
  }
  return pods;
}

/** The node as the last events left it: runtime from server.start and runtime.state, PLEG from its events. */
function nodeFromEvents(events: readonly TraceEvent[], now: number): NodeInfo {
  let start: Extract<TraceEvent, { type: 'server.start' }> | undefined;
  let runtimeState: Extract<TraceEvent, { type: 'runtime.state' }> | undefined;
  let mode: 'generic' | 'evented' = 'generic';
  let lastRelist: number | null = null;
  let lastIteration: number | null = null;
  for (const ev of events) {
    if (ev.type === 'server.start') start = ev;
    else if (ev.type === 'runtime.state') runtimeState = ev;
    else if (ev.type === 'pleg.mode') mode = ev.mode;
    else if (ev.type === 'pleg.relist') lastRelist = ev.time;
    else if (ev.type === 'loop.iteration') lastIteration = ev.time;
  }
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
    pleg: { mode, healthy: true, lastRelist, message: '' },
    sync: { lastIteration },
    configuration: defaultKubeletConfiguration,
    clock: { now, speed: 1 },
  };
}

let nextReplayId = 1;

export function buildReplay(events: readonly TraceEvent[], name: string): ReplayStore {
  return replayOfTrace(fromEvents(events, Math.max(DEFAULT_TRACE_LIMIT, events.length)), name);
}

/** The replay of a trace already built (a kubelet log's, applied batch by batch as the worker sends it). */
export function replayOfTrace(trace: TraceState, name: string): ReplayStore {
  const now = trace.events[trace.events.length - 1]?.time ?? 0;
  return {
    id: nextReplayId++,
    name,
    trace,
    pods: { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: podsFromEvents(trace.events) },
    node: nodeFromEvents(trace.events, now),
    now,
  };
}
