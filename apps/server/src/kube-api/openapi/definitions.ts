/**
 * The OpenAPI schema definitions of the objects this API serves, made from the TypeBox schemas the server
 * decodes and describes them with (the Pod's from @syncscope/core/api/pod-schema.ts, the rest from
 * meta-schemas.ts), named as the apiserver names them (`io.k8s.api.core.v1.PodSpec`). A sub-schema that is
 * one of the named ones becomes a `$ref` to it. What TypeBox cannot say is added here as the apiserver
 * publishes it: the kinds' `x-kubernetes-group-version-kind`, the strategic-merge-patch keys of lists (kubectl
 * builds an apply patch from them), and `required` where the wire type is looser than the stored one (a
 * manifest may leave a Pod's name to generateName, and its status to the node).
 *
 * openApiDefinitions(prefix) is pure; `prefix` is `#/definitions/` for v2 and `#/components/schemas/` for v3.
 */
import type { TSchema } from '@sinclair/typebox';
import * as pod from '@syncscope/core/api/pod-schema';
import * as status from '@syncscope/core/api/pod-status-schema';
import * as meta from './meta-schemas.ts';

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const gvk = (kind: string, group = ''): GroupVersionKind => ({ group, version: 'v1', kind });

/** A named definition: name, schema, and the kinds it is the object of. */
type Named = readonly [string, TSchema, GroupVersionKind[]?];

/** A kind and its `<Kind>List`, both objects of their own. */
const withList = (prefix: string, kind: string, schema: TSchema): Named[] => [
  [`${prefix}${kind}`, schema, [gvk(kind)]],
  [`${prefix}${kind}List`, meta.ListOf(schema), [gvk(`${kind}List`)]],
];

/** Definitions that are parts of objects, not objects of a kind. */
const parts = (prefix: string, schemas: Record<string, TSchema>): Named[] =>
  Object.entries(schemas).map(([name, schema]) => [`${prefix}${name}`, schema]);

/** Every named definition. */
const NAMED: readonly Named[] = [
  ...withList(CORE, 'Pod', pod.PodSchema),
  ...parts(CORE, {
    PodSpec: pod.PodSpecSchema,
    PodStatus: status.PodStatusSchema,
    PodCondition: status.PodConditionSchema,
    ContainerStatus: status.ContainerStatusSchema,
    ContainerState: status.ContainerStateSchema,
    Container: pod.ContainerSchema,
    ContainerPort: pod.ContainerPortSchema,
    EnvVar: pod.EnvVarSchema,
    ResourceRequirements: pod.ResourceRequirementsSchema,
    Probe: pod.ProbeSchema,
    ExecAction: pod.ExecActionSchema,
    HTTPGetAction: pod.HTTPGetActionSchema,
    TCPSocketAction: pod.TCPSocketActionSchema,
    LifecycleHandler: pod.LifecycleHandlerSchema,
  }),
  ...withList(CORE, 'Event', meta.EventSchema),
  ...parts(CORE, { EventSource: meta.EventSourceSchema, ObjectReference: meta.ObjectReferenceSchema }),
  ...withList(CORE, 'Node', meta.NodeSchema),
  ...parts(CORE, {
    NodeSpec: meta.NodeSpecSchema,
    NodeStatus: meta.NodeStatusSchema,
    NodeCondition: meta.NodeConditionSchema,
    NodeAddress: meta.NodeAddressSchema,
  }),
  ...withList(CORE, 'Namespace', meta.NamespaceSchema),
  ...parts(CORE, { NamespaceSpec: meta.NamespaceSpecSchema, NamespaceStatus: meta.NamespaceStatusSchema }),
  ...parts(META, { ObjectMeta: pod.ObjectMetaSchema, ListMeta: meta.ListMetaSchema }),
  [`${META}Status`, meta.StatusSchema, [gvk('Status')]],
  ...parts(META, { StatusDetails: meta.StatusDetailsSchema, StatusCause: meta.StatusCauseSchema }),
  [
    `${META}DeleteOptions`,
    meta.DeleteOptionsSchema,
    [gvk('DeleteOptions'), gvk('DeleteOptions', 'meta.k8s.io')],
  ],
  ...parts(META, { Preconditions: meta.PreconditionsSchema }),
  [`${META}Table`, meta.TableSchema, [gvk('Table', 'meta.k8s.io')]],
  ...parts(META, { TableColumnDefinition: meta.TableColumnDefinitionSchema, TableRow: meta.TableRowSchema }),
  [`${META}WatchEvent`, meta.WatchEventSchema, [gvk('WatchEvent'), gvk('WatchEvent', 'meta.k8s.io')]],
  [`${META}List`, meta.ListSchema, [gvk('List')]],
];

/** `required` as the apiserver publishes it, where the stored type is stricter than the wire. */
const REQUIRED: Readonly<Record<string, string[]>> = {
  [`${CORE}Pod`]: [],
  [`${CORE}PodStatus`]: [],
  [`${CORE}PodSpec`]: ['containers'],
  [`${CORE}Container`]: ['name'],
  [`${CORE}ContainerStatus`]: ['name', 'ready', 'restartCount', 'image', 'imageID'],
  [`${META}ObjectMeta`]: [],
  [`${CORE}Event`]: ['metadata', 'involvedObject'],
};

/** The strategic-merge-patch strategy and merge key of a list field (`<definition>.<field>`). */
const PATCH_KEYS: Readonly<Record<string, [strategy: string, mergeKey?: string]>> = {
  [`${CORE}PodSpec.containers`]: ['merge', 'name'],
  [`${CORE}PodSpec.initContainers`]: ['merge', 'name'],
  [`${CORE}PodSpec.volumes`]: ['merge,retainKeys', 'name'],
  [`${CORE}PodSpec.imagePullSecrets`]: ['merge', 'name'],
  [`${CORE}Container.env`]: ['merge', 'name'],
  [`${CORE}Container.ports`]: ['merge', 'containerPort'],
  [`${CORE}Container.volumeMounts`]: ['merge', 'mountPath'],
  [`${CORE}Container.volumeDevices`]: ['merge', 'devicePath'],
  [`${CORE}PodStatus.conditions`]: ['merge', 'type'],
  [`${CORE}NodeStatus.conditions`]: ['merge', 'type'],
  [`${CORE}NodeStatus.addresses`]: ['merge', 'type'],
  [`${META}ObjectMeta.finalizers`]: ['merge'],
  [`${META}ObjectMeta.ownerReferences`]: ['merge', 'uid'],
};

type Json = Record<string, unknown>;

/**
 * A field whose content this server keeps as sent without describing it (TypeBox `Unknown`): an empty schema
 * would read as "no schema" to kubectl's explain, so it says so.
 */
const ANY: Json = { 'x-kubernetes-preserve-unknown-fields': true };

/** IntOrString and resource.Quantity, as the apiserver publishes them. */
const INT_OR_STRING: Json = { type: 'string', format: 'int-or-string', 'x-kubernetes-int-or-string': true };

/** The OpenAPI form of TypeBox schema `s` (the body of definition `name` when given: never a `$ref`). */
function convert(s: TSchema, prefix: string, byJson: Map<string, string>, name?: string): Json {
  if (name === undefined) {
    const ref = byJson.get(JSON.stringify(s));
    if (ref !== undefined) return { $ref: `${prefix}${ref}` };
  }
  const sub = (t: TSchema) => convert(t, prefix, byJson);
  if (s.goType === 'IntOrString' || s.quantity === true) return { ...INT_OR_STRING };
  if (Array.isArray(s.anyOf)) {
    const options = s.anyOf as TSchema[];
    const consts = options.filter((o) => typeof o.const === 'string').map((o) => o.const as string);
    if (consts.length === options.length) return { type: 'string', enum: consts };
    const typed = options.filter((o) => o.type !== 'null');
    return typed.length === 1 && typed[0] ? sub(typed[0]) : { ...ANY };
  }
  if (typeof s.const === 'string') return { type: 'string', enum: [s.const] };
  switch (s.type) {
    case 'object': {
      if (s.patternProperties) {
        const value = Object.values(s.patternProperties as Record<string, TSchema>)[0];
        return { type: 'object', additionalProperties: value ? sub(value) : { ...ANY } };
      }
      const props: Json = {};
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) {
        const keys = name ? PATCH_KEYS[`${name}.${k}`] : undefined;
        props[k] = {
          ...sub(v),
          ...(keys?.[0] ? { 'x-kubernetes-patch-strategy': keys[0] } : {}),
          ...(keys?.[1] ? { 'x-kubernetes-patch-merge-key': keys[1] } : {}),
        };
      }
      const required = (name && REQUIRED[name]) ?? (s.required as string[] | undefined) ?? [];
      return { type: 'object', properties: props, ...(required.length > 0 ? { required } : {}) };
    }
    case 'array':
      return { type: 'array', items: s.items ? sub(s.items as TSchema) : { ...ANY } };
    case 'integer':
      return { type: 'integer', format: s.goType === 'int32' ? 'int32' : 'int64' };
    case 'string':
    case 'boolean':
    case 'number':
      return { type: s.type };
    default:
      return { ...ANY };
  }
}

/** Every definition, keyed by name, with `$ref`s under `prefix`. */
export function openApiDefinitions(prefix: string): Record<string, Json> {
  const byJson = new Map<string, string>();
  for (const [name, schema] of NAMED) byJson.set(JSON.stringify(schema), name);
  const out: Record<string, Json> = {};
  for (const [name, schema, kinds] of NAMED) {
    out[name] = {
      ...convert(schema, prefix, byJson, name),
      ...(kinds ? { 'x-kubernetes-group-version-kind': kinds } : {}),
    };
  }
  return out;
}
