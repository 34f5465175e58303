/**
 * The trace's schema: one TypeBox object per event type, the source of the TracePayload / TraceEvent types
 * and of TRACE_TYPES in ./trace.ts, and what checkTraceEvent checks an event from outside against (an
 * imported NDJSON file, the journal on disk, the WebSocket in the browser).
 *
 * Unknown extra fields are accepted on every object (JSON Schema's default): a trace written by a newer
 * Syncscope, like a newer kubelet's log, may carry fields this one does not know, and the views read only
 * the fields listed here. An unknown `type`, a missing field or a field of the wrong type is refused.
 * Browser-safe: no Node imports.
 */

import { type TLiteral, type TObject, type TProperties, type TUnion, Type } from '@sinclair/typebox';
import { PodStatusSchema } from '../api/pod-status-schema.ts';
import { SYNC_ACTION_NAMES } from './sync-action-names.ts';

const Str = () => Type.String();
const Int = () => Type.Integer();
const Num = () => Type.Number();
const Bool = () => Type.Boolean();
const Opt = Type.Optional;
const Strings = () => Type.Array(Type.String());
/** One of the given strings. */
const OneOf = <const T extends string>(values: readonly [T, ...T[]]): TUnion<TLiteral<T>[]> =>
  Type.Union(values.map((v) => Type.Literal(v)));

export const LoopSourceSchema = OneOf(['config', 'pleg', 'sync', 'probe', 'housekeeping']);
export const ConfigOpSchema = OneOf(['ADD', 'UPDATE', 'DELETE', 'REMOVE', 'RECONCILE']);
export const PlegEventTypeSchema = OneOf([
  'ContainerStarted',
  'ContainerDied',
  'ContainerRemoved',
  'ContainerChanged',
  'PodSync',
  // a pod's watch conditions met (the kubelet's PLEG from v1.31, for in-place resize); read from logs only
  'ConditionMet',
]);
/** The pod worker's derived state; Finished and Forgotten are the two steps after TerminatedPod. */
export const WorkerStateSchema = OneOf([
  'SyncPod',
  'TerminatingPod',
  'TerminatedPod',
  'Finished',
  'Forgotten',
]);
export const WorkTypeSchema = OneOf(['SyncPod', 'TerminatingPod', 'TerminatedPod']);
export const UpdateTypeSchema = OneOf(['SyncPodCreate', 'SyncPodUpdate', 'SyncPodSync', 'SyncPodKill']);
export const ProbeTypeSchema = OneOf(['Liveness', 'Readiness', 'Startup']);
export const ProbeResultSchema = OneOf(['Success', 'Failure', 'Unknown']);
export const SyncActionNameSchema = OneOf(SYNC_ACTION_NAMES);

/** One SyncResult of the runtime SyncPod: `failed to "<action>" for "<target>" with <error>: "<message>"`. */
export const SyncActionSchema = Type.Object({
  action: SyncActionNameSchema,
  target: Str(),
  error: Opt(Str()),
  message: Opt(Str()),
});

/** What computePodActions decided, with the reasons in words (shown by the step-through). */
export const PlanSummarySchema = Type.Object({
  killPod: Bool(),
  createSandbox: Bool(),
  sandboxId: Opt(Str()),
  attempt: Int(),
  nextInitContainer: Opt(Str()),
  initContainersToStart: Strings(),
  containersToStart: Strings(),
  containersToKill: Type.Array(Type.Object({ name: Str(), containerID: Str(), message: Str() })),
  reasons: Strings(),
});

/** A pod-scoped event's pod: its UID and `namespace/name`. */
const POD_REF = { podUID: Str(), pod: Str() };

/** The payload of one event type: its `type` literal and its fields. */
const event = <T extends string, P extends TProperties>(type: T, props: P) =>
  Type.Object({ type: Type.Literal(type), ...props });

/** Every event type's payload, by type, in the order the docs list them. */
export const TRACE_PAYLOADS = {
  'loop.iteration': event('loop.iteration', { source: LoopSourceSchema, pods: Int(), durationMs: Num() }),
  'loop.skipped': event('loop.skipped', { errors: Strings(), backoffMs: Num() }),
  'config.update': event('config.update', {
    op: ConfigOpSchema,
    source: Str(),
    /** set by an observer from the API's pod on a DELETE (or the ADD of a pod being deleted): its
     *  deletionTimestamp and deletionGracePeriodSeconds */
    deletionTimestamp: Opt(Str()),
    gracePeriodS: Opt(Num()),
    ...POD_REF,
  }),
  'pleg.relist': event('pleg.relist', { durationMs: Num(), pods: Int(), containers: Int(), events: Int() }),
  'pleg.event': event('pleg.event', {
    event: PlegEventTypeSchema,
    containerID: Str(),
    containerName: Opt(Str()),
    /** the container's exit code, when the log says it (an imported kubelet log's "container finished") */
    exitCode: Opt(Int()),
    ...POD_REF,
  }),
  'pleg.mode': event('pleg.mode', { mode: OneOf(['generic', 'evented']), reason: Str() }),
  'worker.update': event('worker.update', {
    updateType: UpdateTypeSchema,
    coalesced: Bool(),
    dropped: Opt(Str()),
    /** an update of a terminating pod: the grace period in effect, and whether it is not the spec's own */
    gracePeriodS: Opt(Num()),
    override: Opt(Bool()),
    ...POD_REF,
  }),
  'worker.state': event('worker.state', {
    from: Type.Union([WorkerStateSchema, Type.Null()]),
    to: WorkerStateSchema,
    ...POD_REF,
  }),
  'sync.start': event('sync.start', { workType: WorkTypeSchema, updateType: UpdateTypeSchema, ...POD_REF }),
  'sync.result': event('sync.result', {
    workType: WorkTypeSchema,
    actions: Type.Array(SyncActionSchema),
    durationMs: Num(),
    error: Opt(Str()),
    plan: Opt(PlanSummarySchema),
    isTerminal: Opt(Bool()),
    requeueAfterMs: Opt(Num()),
    ...POD_REF,
  }),
  'runtime.call': event('runtime.call', {
    method: Str(),
    podUID: Opt(Str()),
    pod: Opt(Str()),
    container: Opt(Str()),
    attempt: Opt(Int()),
    durationMs: Num(),
    code: Opt(Int()),
    error: Opt(Str()),
    /**
     * StopContainer: the grace period sent, and whether the caller passed an override (the kubelet then
     * logs "Killing container with a grace period override"; a terminating pod's kills always do)
     */
    gracePeriodS: Opt(Num()),
    override: Opt(Bool()),
  }),
  'runtime.state': event('runtime.state', { ready: Bool(), errors: Strings() }),
  backoff: event('backoff', {
    kind: OneOf(['container', 'image']),
    container: Str(),
    key: Str(),
    delayS: Num(),
    /** ms since epoch when the window ends */
    until: Num(),
    image: Opt(Str()),
    exitCode: Opt(Int()),
    restartCount: Opt(Int()),
    /** set by an observer: the window was worked out from observed exits by the kubelet's rule */
    inferred: Opt(Bool()),
    /** set by an observer: the observed kubelet's own log stated this window (it replaces the inferred one) */
    confirmed: Opt(Bool()),
    ...POD_REF,
  }),
  'probe.result': event('probe.result', {
    container: Str(),
    probe: ProbeTypeSchema,
    result: ProbeResultSchema,
    output: Opt(Str()),
    ...POD_REF,
  }),
  'status.update': event('status.update', {
    status: PodStatusSchema,
    /**
     * set by an observer: the facts of `status` no read stated (the runtime says neither readiness nor the
     * phase, and CrashLoopBackOff is its back-off rule over the exits it saw): each worked out by the rule in
     * `why`, or not known (`why` says what is missing). A container's `state` or `ready`, or the pod's `phase`.
     */
    derived: Opt(
      Type.Array(
        Type.Object({
          container: Opt(Str()),
          field: OneOf(['state', 'ready', 'phase']),
          basis: OneOf(['inferred', 'unknown']),
          why: Str(),
        }),
      ),
    ),
    ...POD_REF,
  }),
  'k8s.event': event('k8s.event', {
    eventType: OneOf(['Normal', 'Warning']),
    reason: Str(),
    message: Str(),
    count: Int(),
    fieldPath: Opt(Str()),
    ...POD_REF,
  }),
  housekeeping: event('housekeeping', {
    durationMs: Num(),
    forgotten: Int(),
    orphansKilled: Int(),
    restarted: Int(),
  }),
  /** one container garbage collection run (kuberuntime_gc.go GarbageCollect): what it removed */
  'container.gc': event('container.gc', {
    durationMs: Num(),
    containers: Int(),
    sandboxes: Int(),
    podLogDirs: Int(),
    /** the run's errors, aggregated ("Container garbage collection failed") */
    error: Opt(Str()),
  }),
  'server.start': event('server.start', { version: Str(), runtime: Str(), endpoint: Str() }),
  'sim.fault': event('sim.fault', {
    fault: Str(),
    detail: Str(),
    /** an outage: how long (clock ms) the runtime stays unavailable from the event's time */
    outageMs: Opt(Num()),
    /** a clear: the kind of fault it ended ("all" for every one) */
    cleared: Opt(Str()),
  }),
  /** a kubelet log entry the importer did not turn into another event: kept, never dropped */
  'log.raw': event('log.raw', {
    text: Str(),
    /** klog severity letter: I, W, E, F */
    level: Opt(Str()),
    /** the kubelet source position from the klog header, e.g. "kubelet.go:1987" */
    source: Opt(Str()),
    podUID: Opt(Str()),
    pod: Opt(Str()),
  }),
} as const;

/**
 * The fields every event has: `seq` (strictly increasing per journal), `time` (ms since the epoch on the
 * engine's clock), and those only an imported kubelet log sets (packages/core/src/kubelet-log): `node` (the
 * host name, or "pid <n>" when the log shows none), `origin.line` (1-based line of the input file as given)
 * and `inferred` (the log implies the event but shows no line for it).
 */
export const ENVELOPE = {
  seq: Type.Integer({ minimum: 0 }),
  time: Type.Number(),
  node: Opt(Str()),
  origin: Opt(Type.Object({ line: Type.Integer() })),
  inferred: Opt(Bool()),
};

/** An event of one type, envelope included: what checkTraceEvent checks. */
export function eventSchema(payload: TObject): TObject {
  return Type.Object({ ...payload.properties, ...ENVELOPE });
}
