/**
 * The trace: one discriminated union of everything the engine does, from a CRI call to a status change.
 * Server, web and tests all import these types from here (`@syncscope/core/trace`); nothing redefines them.
 *
 * Browser-safe: no Node imports. Every event has
 *   seq   strictly increasing per journal (resume a stream with ?since=<seq>),
 *   time  ms since the epoch on the engine's clock (virtual time on a sped-up simulated node),
 *   type  a dotted name; the payload fields follow.
 * Pod-scoped events carry `podUID` and `pod` ("namespace/name") so a client can filter without a lookup.
 */
import type { PodStatus } from '../api/v1.ts';

export type LoopSource = 'config' | 'pleg' | 'sync' | 'probe' | 'housekeeping';
export type ConfigOp = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';
export type PlegEventType =
  | 'ContainerStarted'
  | 'ContainerDied'
  | 'ContainerRemoved'
  | 'ContainerChanged'
  | 'PodSync';
/** The pod worker's derived state; Finished and Forgotten are the two steps after TerminatedPod. */
export type WorkerState = 'SyncPod' | 'TerminatingPod' | 'TerminatedPod' | 'Finished' | 'Forgotten';
export type WorkType = 'SyncPod' | 'TerminatingPod' | 'TerminatedPod';
export type UpdateType = 'SyncPodCreate' | 'SyncPodUpdate' | 'SyncPodSync' | 'SyncPodKill';
export type ProbeType = 'Liveness' | 'Readiness' | 'Startup';
export type ProbeResult = 'Success' | 'Failure' | 'Unknown';
export type SyncActionName =
  | 'StartContainer'
  | 'KillContainer'
  | 'CreatePodSandbox'
  | 'ConfigPodSandbox'
  | 'KillPodSandbox'
  | 'SetupNetwork'
  | 'TeardownNetwork'
  | 'InitContainer';

/** One SyncResult of the runtime SyncPod: `failed to "<action>" for "<target>" with <error>: "<message>"`. */
export interface SyncAction {
  action: SyncActionName;
  target: string;
  error?: string;
  message?: string;
}

/** What computePodActions decided, with the reasons in words (shown by the step-through). */
export interface PlanSummary {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId?: string;
  attempt: number;
  nextInitContainer?: string;
  initContainersToStart: string[];
  containersToStart: string[];
  containersToKill: { name: string; containerID: string; message: string }[];
  reasons: string[];
}

export interface PodRef {
  podUID: string;
  /** namespace/name */
  pod: string;
}

export type TracePayload =
  | { type: 'loop.iteration'; source: LoopSource; pods: number; durationMs: number }
  | { type: 'loop.skipped'; errors: string[]; backoffMs: number }
  | ({ type: 'config.update'; op: ConfigOp; source: string } & PodRef)
  | { type: 'pleg.relist'; durationMs: number; pods: number; containers: number; events: number }
  | ({
      type: 'pleg.event';
      event: PlegEventType;
      containerID: string;
      containerName?: string;
      /** the container's exit code, when the log says it (an imported kubelet log's "container finished") */
      exitCode?: number;
    } & PodRef)
  | { type: 'pleg.mode'; mode: 'generic' | 'evented'; reason: string }
  | ({
      type: 'worker.update';
      updateType: UpdateType;
      coalesced: boolean;
      dropped?: string;
      /** an update of a terminating pod: the grace period in effect, and whether it is not the spec's own */
      gracePeriodS?: number;
      override?: boolean;
    } & PodRef)
  | ({ type: 'worker.state'; from: WorkerState | null; to: WorkerState } & PodRef)
  | ({ type: 'sync.start'; workType: WorkType; updateType: UpdateType } & PodRef)
  | ({
      type: 'sync.result';
      workType: WorkType;
      actions: SyncAction[];
      durationMs: number;
      error?: string;
      plan?: PlanSummary;
      isTerminal?: boolean;
      requeueAfterMs?: number;
    } & PodRef)
  | {
      type: 'runtime.call';
      method: string;
      podUID?: string;
      pod?: string;
      container?: string;
      attempt?: number;
      durationMs: number;
      code?: number;
      error?: string;
      /**
       * StopContainer: the grace period sent, and whether the caller passed an override (the kubelet then
       * logs "Killing container with a grace period override"; a terminating pod's kills always do)
       */
      gracePeriodS?: number;
      override?: boolean;
    }
  | { type: 'runtime.state'; ready: boolean; errors: string[] }
  | ({
      type: 'backoff';
      kind: 'container' | 'image';
      container: string;
      key: string;
      delayS: number;
      /** ms since epoch when the window ends */
      until: number;
      image?: string;
      exitCode?: number;
      restartCount?: number;
      /** set by an observer: the window was worked out from observed exits by the kubelet's rule */
      inferred?: boolean;
      /** set by an observer: the observed kubelet's own log stated this window (it replaces the inferred one) */
      confirmed?: boolean;
    } & PodRef)
  | ({
      type: 'probe.result';
      container: string;
      probe: ProbeType;
      result: ProbeResult;
      output?: string;
    } & PodRef)
  | ({ type: 'status.update'; status: PodStatus } & PodRef)
  | ({
      type: 'k8s.event';
      eventType: 'Normal' | 'Warning';
      reason: string;
      message: string;
      count: number;
      fieldPath?: string;
    } & PodRef)
  | { type: 'housekeeping'; durationMs: number; forgotten: number; orphansKilled: number; restarted: number }
  | { type: 'server.start'; version: string; runtime: string; endpoint: string }
  | {
      type: 'sim.fault';
      fault: string;
      detail: string;
      /** an outage: how long (clock ms) the runtime stays unavailable from the event's time */
      outageMs?: number;
      /** a clear: the kind of fault it ended ("all" for every one) */
      cleared?: string;
    }
  | {
      /** a kubelet log entry the importer did not turn into another event: kept, never dropped */
      type: 'log.raw';
      text: string;
      /** klog severity letter: I, W, E, F */
      level?: string;
      /** the kubelet source position from the klog header, e.g. "kubelet.go:1987" */
      source?: string;
      podUID?: string;
      pod?: string;
    };

/**
 * Fields only an imported kubelet log sets (packages/core/src/kubelet-log): `node` (the host name, or
 * "pid <n>" when the log shows none), `origin.line` (1-based line of the input file as given) and `inferred`
 * (the log implies the event but shows no line for it).
 */
export interface ImportedFields {
  node?: string;
  origin?: { line: number };
  inferred?: boolean;
}

export type TraceEvent = TracePayload & { seq: number; time: number } & ImportedFields;
export type TraceType = TraceEvent['type'];
export type TraceOf<T extends TraceType> = Extract<TraceEvent, { type: T }>;

export const TRACE_TYPES: readonly TraceType[] = [
  'loop.iteration',
  'loop.skipped',
  'config.update',
  'pleg.relist',
  'pleg.event',
  'pleg.mode',
  'worker.update',
  'worker.state',
  'sync.start',
  'sync.result',
  'runtime.call',
  'runtime.state',
  'backoff',
  'probe.result',
  'status.update',
  'k8s.event',
  'housekeeping',
  'server.start',
  'sim.fault',
  'log.raw',
];

/** The pod an event belongs to, if any. */
export function podUIDOf(ev: TraceEvent): string | undefined {
  return 'podUID' in ev ? ev.podUID : undefined;
}

/**
 * A light structural check for events entering the browser (import of a file, the WebSocket): the
 * envelope fields and a known type. Returns an error text or undefined.
 */
export function checkTraceEvent(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return 'event is not an object';
  const o = v as Record<string, unknown>;
  if (typeof o.seq !== 'number' || !Number.isInteger(o.seq) || o.seq < 0)
    return 'seq must be a non-negative integer';
  if (typeof o.time !== 'number' || !Number.isFinite(o.time)) return 'time must be a number';
  if (typeof o.type !== 'string' || !TRACE_TYPES.includes(o.type as TraceType))
    return `unknown type ${String(o.type)}`;
  if ('podUID' in o && typeof o.podUID !== 'string') return 'podUID must be a string';
  if ('node' in o && typeof o.node !== 'string') return 'node must be a string';
  if ('origin' in o) {
    const origin = o.origin as { line?: unknown } | null;
    if (typeof origin !== 'object' || origin === null || typeof origin.line !== 'number')
      return 'origin must be {line: number}';
  }
  if ('inferred' in o && typeof o.inferred !== 'boolean') return 'inferred must be a boolean';
  return undefined;
}
