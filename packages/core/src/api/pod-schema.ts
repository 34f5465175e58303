/**
 * The v1 Pod as one TypeBox schema: the source of the Pod types in ./v1.ts (`Static<typeof PodSchema>`) and
 * of strict decoding (./decode.ts checks a manifest against WIRE_POD_SCHEMA, the same schema with presence
 * left to validatePod). Fields the engine models are typed; fields Kubernetes knows but a simulated node has
 * no use for (volumes, securityContext, tolerations, ...) are `Unknown`, accepted and kept, so a manifest
 * written for a cluster still applies. Any other field is an unknown field, as with `kubectl --validate=strict`.
 *
 * Every schema node may carry `goType`, the Go type the API server would decode the field into: the decode
 * error names it (`json: cannot unmarshal number into field spec.x of type int32`). Enumerations are plain
 * strings on the wire (validatePod refuses an unsupported value with its own text) and narrowed only in the
 * static type. Browser-safe.
 */

import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { PodStatusSchema } from './pod-status-schema.ts';
import { parseQuantity } from './quantity.ts';

export { parseQuantity } from './quantity.ts';

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** A Go int32. */
const Int32 = () => Type.Integer({ minimum: INT32_MIN, maximum: INT32_MAX, goType: 'int32' });
/** A Go int64, kept to JavaScript's safe integers. */
const Int64 = () =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, goType: 'int64' });
const Str = () => Type.String();
const Bool = () => Type.Boolean({ goType: 'bool' });
/** A known field whose content Syncscope does not read: any JSON, kept as sent. */
const Opaque = () => Type.Unknown();
/** A string enumeration: any string on the wire, the listed values in the static type. */
const Enum = <T extends string>() => Type.Unsafe<T>(Type.String());
const IntOrString = () => Type.Union([Type.String(), Int32()], { goType: 'IntOrString' });
const StringMap = () => Type.Record(Type.String(), Type.String(), { goType: 'map[string]string' });
/** The `format` of a resource.Quantity string: one parseQuantity reads to a finite number. */
export const QUANTITY_FORMAT = 'k8s-quantity';
if (!FormatRegistry.Has(QUANTITY_FORMAT))
  FormatRegistry.Set(QUANTITY_FORMAT, (s) => parseQuantity(s) !== undefined);

/** A ResourceList: resource.Quantity strings (a bare JSON number is read as its text by decodePod). */
const QuantityMap = () =>
  Type.Record(Type.String(), Type.String({ format: QUANTITY_FORMAT, quantity: true }), {
    goType: 'ResourceList',
  });
const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
/** An object type: every other key is an unknown field. */
const Obj = <P extends Record<string, TSchema>>(props: P) =>
  Type.Object(props, { additionalProperties: false });

export const ExecActionSchema = Obj({ command: Opt(Type.Array(Str())) });
export const HTTPGetActionSchema = Obj({
  path: Opt(Str()),
  port: IntOrString(),
  host: Opt(Str()),
  scheme: Opt(Enum<'HTTP' | 'HTTPS'>()),
  httpHeaders: Opt(Type.Array(Obj({ name: Str(), value: Str() }))),
});
export const TCPSocketActionSchema = Obj({ port: IntOrString(), host: Opt(Str()) });
const GRPCActionSchema = Obj({ port: Int32(), service: Opt(Str()) });

export const ProbeSchema = Obj({
  exec: Opt(ExecActionSchema),
  httpGet: Opt(HTTPGetActionSchema),
  tcpSocket: Opt(TCPSocketActionSchema),
  grpc: Opt(GRPCActionSchema),
  initialDelaySeconds: Opt(Int32()),
  timeoutSeconds: Opt(Int32()),
  periodSeconds: Opt(Int32()),
  successThreshold: Opt(Int32()),
  failureThreshold: Opt(Int32()),
  terminationGracePeriodSeconds: Opt(Int64()),
});

export const LifecycleHandlerSchema = Obj({
  exec: Opt(ExecActionSchema),
  httpGet: Opt(HTTPGetActionSchema),
  tcpSocket: Opt(TCPSocketActionSchema),
  sleep: Opt(Obj({ seconds: Int64() })),
});

export const ContainerPortSchema = Obj({
  name: Opt(Str()),
  containerPort: Int32(),
  hostPort: Opt(Int32()),
  protocol: Opt(Enum<'TCP' | 'UDP' | 'SCTP'>()),
  hostIP: Opt(Str()),
});

export const EnvVarSchema = Obj({ name: Str(), value: Opt(Str()), valueFrom: Opt(Opaque()) });

export const ResourceRequirementsSchema = Obj({
  limits: Opt(QuantityMap()),
  requests: Opt(QuantityMap()),
  claims: Opt(Opaque()),
});

export const ContainerSchema = Obj({
  name: Str(),
  image: Str(),
  command: Opt(Type.Array(Str())),
  args: Opt(Type.Array(Str())),
  workingDir: Opt(Str()),
  env: Opt(Type.Array(EnvVarSchema)),
  envFrom: Opt(Opaque()),
  ports: Opt(Type.Array(ContainerPortSchema)),
  resources: Opt(ResourceRequirementsSchema),
  resizePolicy: Opt(Opaque()),
  imagePullPolicy: Opt(Enum<'Always' | 'IfNotPresent' | 'Never'>()),
  livenessProbe: Opt(ProbeSchema),
  readinessProbe: Opt(ProbeSchema),
  startupProbe: Opt(ProbeSchema),
  lifecycle: Opt(
    Obj({
      postStart: Opt(LifecycleHandlerSchema),
      preStop: Opt(LifecycleHandlerSchema),
      stopSignal: Opt(Str()),
    }),
  ),
  terminationMessagePath: Opt(Str()),
  terminationMessagePolicy: Opt(Enum<'File' | 'FallbackToLogsOnError'>()),
  /** Only on init containers: `Always` makes it a sidecar (restartable init container). */
  restartPolicy: Opt(Enum<'Always'>()),
  securityContext: Opt(Opaque()),
  volumeMounts: Opt(Opaque()),
  volumeDevices: Opt(Opaque()),
  stdin: Opt(Bool()),
  stdinOnce: Opt(Bool()),
  tty: Opt(Bool()),
});

export const ObjectMetaSchema = Obj({
  name: Str(),
  generateName: Opt(Str()),
  namespace: Opt(Str()),
  uid: Opt(Str()),
  labels: Opt(StringMap()),
  annotations: Opt(StringMap()),
  creationTimestamp: Opt(Str()),
  deletionTimestamp: Opt(Str()),
  deletionGracePeriodSeconds: Opt(Int64()),
  resourceVersion: Opt(Str()),
  generation: Opt(Int64()),
  ownerReferences: Opt(Opaque()),
  finalizers: Opt(Type.Array(Str())),
  managedFields: Opt(Opaque()),
});

export const PodSpecSchema = Obj({
  containers: Type.Array(ContainerSchema),
  initContainers: Opt(Type.Array(ContainerSchema)),
  restartPolicy: Opt(Enum<'Always' | 'OnFailure' | 'Never'>()),
  terminationGracePeriodSeconds: Opt(Int64()),
  activeDeadlineSeconds: Opt(Int64()),
  hostNetwork: Opt(Bool()),
  hostPID: Opt(Bool()),
  hostIPC: Opt(Bool()),
  hostname: Opt(Str()),
  subdomain: Opt(Str()),
  nodeName: Opt(Str()),
  nodeSelector: Opt(StringMap()),
  dnsPolicy: Opt(Str()),
  dnsConfig: Opt(Opaque()),
  readinessGates: Opt(Type.Array(Obj({ conditionType: Str() }))),
  volumes: Opt(Opaque()),
  serviceAccountName: Opt(Str()),
  serviceAccount: Opt(Str()),
  automountServiceAccountToken: Opt(Bool()),
  securityContext: Opt(Opaque()),
  imagePullSecrets: Opt(Opaque()),
  affinity: Opt(Opaque()),
  tolerations: Opt(Opaque()),
  schedulerName: Opt(Str()),
  priority: Opt(Int32()),
  priorityClassName: Opt(Str()),
  enableServiceLinks: Opt(Bool()),
  preemptionPolicy: Opt(Str()),
  shareProcessNamespace: Opt(Bool()),
  topologySpreadConstraints: Opt(Opaque()),
  runtimeClassName: Opt(Str()),
});

/** A v1 Pod as stored and served. `status` is the node's. */
export const PodSchema = Obj({
  apiVersion: Type.Unsafe<'v1'>(Type.String()),
  kind: Type.Unsafe<'Pod'>(Type.String()),
  metadata: ObjectMetaSchema,
  spec: PodSpecSchema,
  status: Opt(PodStatusSchema),
});

/**
 * What a client may send: PodSchema with every field optional (a missing name, image or container is
 * validatePod's `Required value`, not a decoding error) and `status` any JSON (accepted and dropped on
 * create, as the API server does).
 */
export const WIRE_POD_SCHEMA: TSchema = optionalEverywhere(
  Obj({ ...PodSchema.properties, status: Opt(Opaque()) }),
);

/** A copy of `t` without `required` lists, at every depth; every other key (symbols too) is kept. */
function optionalEverywhere(t: TSchema): TSchema {
  const out: Record<string | symbol, unknown> = { ...t };
  delete out.required;
  for (const key of ['items', 'additionalProperties'] as const) {
    const sub = t[key] as unknown;
    if (typeof sub === 'object' && sub !== null) out[key] = optionalEverywhere(sub as TSchema);
  }
  for (const key of ['properties', 'patternProperties'] as const) {
    const sub = t[key] as Record<string, TSchema> | undefined;
    if (sub) out[key] = Object.fromEntries(Object.entries(sub).map(([k, v]) => [k, optionalEverywhere(v)]));
  }
  if (Array.isArray(t.anyOf)) out.anyOf = (t.anyOf as TSchema[]).map(optionalEverywhere);
  return out as unknown as TSchema;
}
