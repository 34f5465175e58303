/**
 * TypeBox schemas of the objects this API serves besides the Pod (whose schema is the one the server decodes
 * with, @syncscope/core/api/pod-schema.ts): Status, DeleteOptions, Table, the lists, Event, Node, Namespace
 * and WatchEvent, with the fields their Go types have that this server writes or reads. They exist to be
 * published in the OpenAPI documents (openapi/documents.ts); the route code builds these objects itself.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { ObjectMetaSchema } from '@syncscope/core/api/pod-schema';

const Str = () => Type.String();
const Int32 = () => Type.Integer({ goType: 'int32' });
const Int64 = () => Type.Integer({ goType: 'int64' });
const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
const StrMap = () => Type.Record(Str(), Str());
/** Any JSON: a RawExtension or a field this server does not describe. */
const Any = () => Type.Unknown();

/** The kind and version every object and list carries (TypeMeta). */
const TypeMeta = { apiVersion: Opt(Str()), kind: Opt(Str()) };

/** An object of a kind with a spec and a status (Node, Namespace). */
const KindSchema = (spec: TSchema, status: TSchema) =>
  Type.Object({ ...TypeMeta, metadata: Opt(ObjectMetaSchema), spec: Opt(spec), status: Opt(status) });

export const ListMetaSchema = Type.Object({
  resourceVersion: Opt(Str()),
  continue: Opt(Str()),
  remainingItemCount: Opt(Int64()),
  selfLink: Opt(Str()),
});

export const StatusCauseSchema = Type.Object({
  field: Opt(Str()),
  message: Opt(Str()),
  reason: Opt(Str()),
});

export const StatusDetailsSchema = Type.Object({
  name: Opt(Str()),
  group: Opt(Str()),
  kind: Opt(Str()),
  uid: Opt(Str()),
  causes: Opt(Type.Array(StatusCauseSchema)),
  retryAfterSeconds: Opt(Int32()),
});

export const StatusSchema = Type.Object({
  ...TypeMeta,
  metadata: Opt(ListMetaSchema),
  status: Opt(Str()),
  message: Opt(Str()),
  reason: Opt(Str()),
  details: Opt(StatusDetailsSchema),
  code: Opt(Int32()),
});

export const PreconditionsSchema = Type.Object({ uid: Opt(Str()), resourceVersion: Opt(Str()) });

export const DeleteOptionsSchema = Type.Object({
  ...TypeMeta,
  gracePeriodSeconds: Opt(Int64()),
  preconditions: Opt(PreconditionsSchema),
  orphanDependents: Opt(Type.Boolean()),
  propagationPolicy: Opt(Str()),
  dryRun: Opt(Type.Array(Str())),
  ignoreStoreReadErrorWithClusterBreakingPotential: Opt(Type.Boolean()),
});

export const TableColumnDefinitionSchema = Type.Object({
  name: Str(),
  type: Str(),
  format: Str(),
  description: Str(),
  priority: Int32(),
});

export const TableRowSchema = Type.Object({
  cells: Type.Array(Any()),
  conditions: Opt(Type.Array(Any())),
  object: Opt(Any()),
});

export const TableSchema = Type.Object({
  ...TypeMeta,
  metadata: Opt(ListMetaSchema),
  columnDefinitions: Type.Array(TableColumnDefinitionSchema),
  rows: Type.Array(TableRowSchema),
});

export const WatchEventSchema = Type.Object({ type: Str(), object: Any() });

export const ObjectReferenceSchema = Type.Object({
  ...TypeMeta,
  name: Opt(Str()),
  namespace: Opt(Str()),
  uid: Opt(Str()),
  resourceVersion: Opt(Str()),
  fieldPath: Opt(Str()),
});

export const EventSourceSchema = Type.Object({ component: Opt(Str()), host: Opt(Str()) });

export const EventSchema = Type.Object({
  ...TypeMeta,
  metadata: ObjectMetaSchema,
  involvedObject: ObjectReferenceSchema,
  reason: Opt(Str()),
  message: Opt(Str()),
  source: Opt(EventSourceSchema),
  firstTimestamp: Opt(Str()),
  lastTimestamp: Opt(Str()),
  eventTime: Opt(Any()),
  count: Opt(Int32()),
  type: Opt(Str()),
  reportingComponent: Opt(Str()),
  reportingInstance: Opt(Str()),
});

export const NodeConditionSchema = Type.Object({
  type: Str(),
  status: Str(),
  lastHeartbeatTime: Opt(Str()),
  lastTransitionTime: Opt(Str()),
  reason: Opt(Str()),
  message: Opt(Str()),
});

export const NodeAddressSchema = Type.Object({ type: Str(), address: Str() });

export const NodeSpecSchema = Type.Object({
  unschedulable: Opt(Type.Boolean()),
  podCIDR: Opt(Str()),
  providerID: Opt(Str()),
  taints: Opt(Any()),
});

export const NodeStatusSchema = Type.Object({
  capacity: Opt(StrMap()),
  allocatable: Opt(StrMap()),
  conditions: Opt(Type.Array(NodeConditionSchema)),
  addresses: Opt(Type.Array(NodeAddressSchema)),
  daemonEndpoints: Opt(Any()),
  nodeInfo: Opt(StrMap()),
  images: Opt(Any()),
});

export const NodeSchema = KindSchema(NodeSpecSchema, NodeStatusSchema);

export const NamespaceSpecSchema = Type.Object({ finalizers: Opt(Type.Array(Str())) });
export const NamespaceStatusSchema = Type.Object({ phase: Opt(Str()), conditions: Opt(Any()) });

export const NamespaceSchema = KindSchema(NamespaceSpecSchema, NamespaceStatusSchema);

/** A `<Kind>List` of `item`. */
export const ListOf = (item: TSchema) =>
  Type.Object({
    ...TypeMeta,
    metadata: Opt(ListMetaSchema),
    items: Type.Array(item),
  });

/** The untyped v1 List kubectl prints several objects as. */
export const ListSchema = ListOf(Any());
