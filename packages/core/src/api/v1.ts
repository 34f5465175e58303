/**
 * The parts of the Kubernetes core/v1 API that Syncscope reads and writes: Pod (spec and status), Event,
 * Status. Field names and JSON shapes as in k8s.io/api core/v1, so a Pod manifest written for a cluster
 * applies here unchanged and `kubectl` users read our objects without translation.
 *
 * The Pod and its parts are the static types of the TypeBox schemas in ./pod-schema.ts and
 * ./pod-status-schema.ts (one source for the types and for strict decoding); the rest is declared here.
 * Browser-safe: no Node imports. Times are RFC 3339 strings, as on the wire.
 */

import type { Static } from '@sinclair/typebox';
import type {
  ContainerPortSchema,
  ContainerSchema,
  EnvVarSchema,
  ExecActionSchema,
  HTTPGetActionSchema,
  LifecycleHandlerSchema,
  ObjectMetaSchema,
  PodSchema,
  PodSpecSchema,
  ProbeSchema,
  ResourceRequirementsSchema,
  TCPSocketActionSchema,
} from './pod-schema.ts';
import type {
  ContainerStateRunningSchema,
  ContainerStateSchema,
  ContainerStateTerminatedSchema,
  ContainerStateWaitingSchema,
  ContainerStatusSchema,
  PodConditionSchema,
  PodPhaseSchema,
  PodStatusSchema,
} from './pod-status-schema.ts';

export type ObjectMeta = Static<typeof ObjectMetaSchema>;

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export type ExecAction = Static<typeof ExecActionSchema>;
export type HTTPGetAction = Static<typeof HTTPGetActionSchema>;
export type TCPSocketAction = Static<typeof TCPSocketActionSchema>;
export type Probe = Static<typeof ProbeSchema>;
export type LifecycleHandler = Static<typeof LifecycleHandlerSchema>;
export type ContainerPort = Static<typeof ContainerPortSchema>;
export type EnvVar = Static<typeof EnvVarSchema>;
export type ResourceRequirements = Static<typeof ResourceRequirementsSchema>;
export type Container = Static<typeof ContainerSchema>;
export type PodSpec = Static<typeof PodSpecSchema>;

export type ContainerStateWaiting = Static<typeof ContainerStateWaitingSchema>;
export type ContainerStateRunning = Static<typeof ContainerStateRunningSchema>;
export type ContainerStateTerminated = Static<typeof ContainerStateTerminatedSchema>;
export type ContainerState = Static<typeof ContainerStateSchema>;
export type ContainerStatus = Static<typeof ContainerStatusSchema>;
export type PodPhase = Static<typeof PodPhaseSchema>;
export type PodCondition = Static<typeof PodConditionSchema>;
export type PodStatus = Static<typeof PodStatusSchema>;

export type Pod = Static<typeof PodSchema>;

export interface PodList {
  apiVersion: 'v1';
  kind: 'PodList';
  metadata: { resourceVersion?: string };
  items: Pod[];
}

export interface ObjectReference {
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  fieldPath?: string;
}

export interface Event {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string; host?: string };
}

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

/** The Kubernetes Status object every API error is returned as. */
export interface Status {
  apiVersion: 'v1';
  kind: 'Status';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message: string;
  reason: string;
  details?: { name?: string; kind?: string; causes?: StatusCause[] };
  code: number;
}

/** Is this an API error answer (a Status object)? */
export function isStatus(v: unknown): v is Status {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'Status';
}

/** Go-style RFC 3339 (seconds precision, Z), as the API server writes times. */
export function rfc3339(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** An API time back to epoch ms; null when absent or unparseable. */
export function parseRFC3339(timestamp: string | undefined | null): number | null {
  if (!timestamp) return null;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? null : t;
}
