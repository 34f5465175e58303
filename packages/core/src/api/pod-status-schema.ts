/**
 * The v1 PodStatus as a TypeBox schema: the source of the status types in ./v1.ts. The node writes a status
 * and a client never sends one (decodePod drops it), so these schemas check what the trace carries
 * (`status.update`, ../events/trace-schema.ts): objects here accept fields they do not list, as a newer
 * kubelet's status may hold more. Browser-safe.
 */

import { Type } from '@sinclair/typebox';

const Str = () => Type.String();
const Opt = Type.Optional;
const Literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

export const ContainerStateWaitingSchema = Type.Object({ reason: Opt(Str()), message: Opt(Str()) });
export const ContainerStateRunningSchema = Type.Object({ startedAt: Opt(Str()) });
export const ContainerStateTerminatedSchema = Type.Object({
  exitCode: Type.Integer(),
  signal: Opt(Type.Integer()),
  reason: Opt(Str()),
  message: Opt(Str()),
  startedAt: Opt(Str()),
  finishedAt: Opt(Str()),
  containerID: Opt(Str()),
});
export const ContainerStateSchema = Type.Object({
  waiting: Opt(ContainerStateWaitingSchema),
  running: Opt(ContainerStateRunningSchema),
  terminated: Opt(ContainerStateTerminatedSchema),
});

export const ContainerStatusSchema = Type.Object({
  name: Str(),
  state: ContainerStateSchema,
  lastState: ContainerStateSchema,
  ready: Type.Boolean(),
  restartCount: Type.Integer(),
  image: Str(),
  imageID: Str(),
  containerID: Opt(Str()),
  started: Opt(Type.Boolean()),
});

export const PodPhaseSchema = Literals(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const);

export const PodConditionSchema = Type.Object({
  type: Str(),
  status: Literals(['True', 'False', 'Unknown'] as const),
  lastProbeTime: Opt(Type.Union([Str(), Type.Null()])),
  lastTransitionTime: Opt(Str()),
  reason: Opt(Str()),
  message: Opt(Str()),
});

const IPs = () => Type.Array(Type.Object({ ip: Str() }));

export const PodStatusSchema = Type.Object({
  phase: PodPhaseSchema,
  conditions: Opt(Type.Array(PodConditionSchema)),
  message: Opt(Str()),
  reason: Opt(Str()),
  hostIP: Opt(Str()),
  hostIPs: Opt(IPs()),
  podIP: Opt(Str()),
  podIPs: Opt(IPs()),
  startTime: Opt(Str()),
  initContainerStatuses: Opt(Type.Array(ContainerStatusSchema)),
  containerStatuses: Opt(Type.Array(ContainerStatusSchema)),
  qosClass: Opt(Str()),
});
