/**
 * The trace: one discriminated union of everything the engine does, from a CRI call to a status change.
 * Server, web and tests all import these types from here (`@syncscope/core/trace`); nothing redefines them.
 *
 * Browser-safe: no Node imports. Every event has
 *   seq   strictly increasing per journal (resume a stream with ?since=<seq>),
 *   time  ms since the epoch on the engine's clock (virtual time on a sped-up simulated node),
 *   type  a dotted name; the payload fields follow.
 * Pod-scoped events carry `podUID` and `pod` ("namespace/name") so a client can filter without a lookup.
 * The types are those of the schema in ./trace-schema.ts, the one source of what an event holds.
 */
import type { Static, TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Checker, lazyCheck } from '../api/schema-check.ts';
import {
  type ConfigOpSchema,
  eventSchema,
  type LoopSourceSchema,
  type PlanSummarySchema,
  type PlegEventTypeSchema,
  type ProbeResultSchema,
  type ProbeTypeSchema,
  type SyncActionNameSchema,
  type SyncActionSchema,
  TRACE_PAYLOADS,
  type UpdateTypeSchema,
  type WorkerStateSchema,
  type WorkTypeSchema,
} from './trace-schema.ts';

export type LoopSource = Static<typeof LoopSourceSchema>;
export type ConfigOp = Static<typeof ConfigOpSchema>;
export type PlegEventType = Static<typeof PlegEventTypeSchema>;
/** The pod worker's derived state; Finished and Forgotten are the two steps after TerminatedPod. */
export type WorkerState = Static<typeof WorkerStateSchema>;
export type WorkType = Static<typeof WorkTypeSchema>;
export type UpdateType = Static<typeof UpdateTypeSchema>;
export type ProbeType = Static<typeof ProbeTypeSchema>;
export type ProbeResult = Static<typeof ProbeResultSchema>;
export type SyncActionName = Static<typeof SyncActionNameSchema>;
/** One SyncResult of the runtime SyncPod: `failed to "<action>" for "<target>" with <error>: "<message>"`. */
export type SyncAction = Static<typeof SyncActionSchema>;
/** What computePodActions decided, with the reasons in words (shown by the step-through). */
export type PlanSummary = Static<typeof PlanSummarySchema>;

export interface PodRef {
  podUID: string;
  /** namespace/name */
  pod: string;
}

type Payloads = typeof TRACE_PAYLOADS;
/** The payload of an event of each type (./trace-schema.ts), without the envelope. */
export type TracePayload = { [T in keyof Payloads]: Static<Payloads[T]> }[keyof Payloads];

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

/** Every event type, from the schema. */
export const TRACE_TYPES: readonly TraceType[] = Object.keys(TRACE_PAYLOADS) as TraceType[];

/** The pod an event belongs to, if any. */
export function podUIDOf(ev: TraceEvent): string | undefined {
  return 'podUID' in ev ? ev.podUID : undefined;
}

/** Per type: the event's schema with its envelope, and its check, compiled on first use. */
const CHECKS = new Map<string, { schema: TObject; check: Checker<TObject> }>(
  Object.entries(TRACE_PAYLOADS).map(([type, payload]) => {
    const schema = eventSchema(payload);
    return [type, { schema, check: lazyCheck(schema) }];
  }),
);

/**
 * The full check of an event from outside (an imported NDJSON file, the journal's lines, the WebSocket):
 * the envelope, then every field of its type's schema (./trace-schema.ts). Returns undefined when it is a
 * TraceEvent, else one error text: the envelope's in words (`seq must be a non-negative integer`,
 * `unknown type foo`), a payload's as the schema's path and reason (`sync.result: /actions/0/target:
 * Expected string`). Fields the schema does not list are accepted (a newer version's trace). Browser-safe;
 * the check is compiled once per type where the page allows it (see ../api/schema-check.ts).
 */
export function checkTraceEvent(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'event is not an object';
  const o = v as Record<string, unknown>;
  if (typeof o.seq !== 'number' || !Number.isInteger(o.seq) || o.seq < 0)
    return 'seq must be a non-negative integer';
  if (typeof o.time !== 'number' || !Number.isFinite(o.time)) return 'time must be a number';
  const entry =
    typeof o.type === 'string' && Object.hasOwn(TRACE_PAYLOADS, o.type) ? CHECKS.get(o.type) : undefined;
  if (!entry) return `unknown type ${String(o.type)}`;
  if ('origin' in o) {
    const origin = o.origin as { line?: unknown } | null;
    if (typeof origin !== 'object' || origin === null || typeof origin.line !== 'number')
      return 'origin must be {line: number}';
  }
  if (entry.check(v)) return undefined;
  const first = Value.Errors(entry.schema, v).First();
  return first ? `${o.type}: ${first.path || '/'}: ${first.message}` : `${o.type}: does not match its schema`;
}
