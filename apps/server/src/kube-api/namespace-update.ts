/**
 * A namespace update (PUT) or patch (PATCH), checked as the apiserver's namespace strategy and metadata
 * validation check it. What may change is the metadata a user owns: labels and annotations. The rest is
 * kept from the stored namespace (the strategy's PrepareForUpdate keeps spec and status; uid, creation and
 * deletion timestamps are not the client's to set), and the `kubernetes.io/metadata.name` label is set to
 * the name again whatever the body says, as the apiserver's defaulting does.
 * - a body that is not a Namespace: 400; a name that differs from the URL's: 400 as the apiserver says it;
 * - a resourceVersion that is not the stored one: 409 Conflict (an optimistic-concurrency update). A write
 *   takes the list's version then (the node's trace seq, which every relist moves): two writes between the
 *   same two trace events share it;
 * - a label key or value, or an annotation key, that is not valid: 422 Invalid naming `metadata.labels` or
 *   `metadata.annotations`; annotations over 256 KiB in all: 422 Too long.
 * A patch is applied to the Namespace as the API serves it (patch.ts: json, merge or strategic merge), its
 * depth and the result's size bounded before anything reads it. Pure: no store, no clock.
 */
import type { Status, StatusCause } from '@syncscope/core/api';
import { BODY_LIMIT_BYTES } from '../context.ts';
import { MAX_OBJECT_DEPTH } from '../limits.ts';
import { badRequest, status } from '../status.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-names.ts';
import type { Namespace } from './namespace-object.ts';
import { applyPatch, type Json, jsonBounds, PatchError, type PatchType } from './patch.ts';

/** What an update may change. */
export interface NamespaceChange {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** apimachinery's TotalAnnotationSizeLimitB. */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;
const CONFLICT =
  'the object has been modified; please apply your changes to the latest version and try again';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMap(v: unknown, field: string): Record<string, string> | Status {
  if (v === undefined || v === null) return {};
  if (!isObject(v) || Object.values(v).some((x) => typeof x !== 'string'))
    return badRequest(
      `Namespace in version "v1" cannot be handled as a Namespace: ${field}: expected map of strings`,
    );
  return v as Record<string, string>;
}

function invalid(name: string, causes: StatusCause[]): Status {
  const message = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return status(
    422,
    'Invalid',
    `Namespace "${name}" is invalid: ${causes.length > 1 ? `[${message}]` : message}`,
    {
      name,
      kind: 'Namespace',
      causes,
    },
  );
}

/** The metadata errors of labels and annotations, as ValidateLabels and ValidateAnnotations word them. */
function metadataCauses(labels: Record<string, string>, annotations: Record<string, string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const bad = (field: string, value: string, why: string) =>
    causes.push({ reason: 'FieldValueInvalid', field, message: `Invalid value: "${value}": ${why}` });
  for (const [k, v] of Object.entries(labels)) {
    for (const e of qualifiedNameErrors(k)) bad('metadata.labels', k, e);
    for (const e of labelValueErrors(v)) bad('metadata.labels', v, e);
  }
  let bytes = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const e of qualifiedNameErrors(k.toLowerCase())) bad('metadata.annotations', k, e);
    bytes += k.length + v.length;
  }
  if (bytes > ANNOTATIONS_MAX_BYTES)
    causes.push({
      reason: 'FieldValueTooLong',
      field: 'metadata.annotations',
      message: `Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`,
    });
  return causes;
}

/** The change a PUT body (or a patched object) asks of namespace `old`, or the Status refusing it. */
export function readNamespaceUpdate(old: Namespace, body: unknown): NamespaceChange | Status {
  const name = old.metadata.name;
  if (!isObject(body) || (body.kind !== undefined && body.kind !== 'Namespace'))
    return badRequest('the object provided is unrecognized (must be of type Namespace)');
  const meta = isObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== name)
    return badRequest(
      `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
    );
  const rv = meta.resourceVersion;
  if (rv !== undefined && rv !== '' && rv !== old.metadata.resourceVersion)
    return status(409, 'Conflict', `Operation cannot be fulfilled on namespaces "${name}": ${CONFLICT}`, {
      name,
      kind: 'namespaces',
    });
  const labels = stringMap(meta.labels, 'metadata.labels');
  if ('kind' in labels) return labels as Status;
  const annotations = stringMap(meta.annotations, 'metadata.annotations');
  if ('kind' in annotations) return annotations as Status;
  const causes = metadataCauses(labels, annotations);
  if (causes.length > 0) return invalid(name, causes);
  return { labels: labels as Record<string, string>, annotations: annotations as Record<string, string> };
}

/** The change a PATCH of `type` with `body` makes to namespace `old`, or the Status refusing it. */
export function patchedNamespace(old: Namespace, type: PatchType, body: string): NamespaceChange | Status {
  let patch: Json;
  try {
    patch = JSON.parse(body) as Json;
  } catch (e) {
    return badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  if (jsonBounds(patch, MAX_OBJECT_DEPTH + 2, Number.POSITIVE_INFINITY) === 'deep')
    return badRequest(`error decoding patch: the patch is nested deeper than ${MAX_OBJECT_DEPTH + 2} levels`);
  let patched: Json;
  try {
    patched = applyPatch(type, structuredClone(old) as unknown as Json, patch);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    return e.code === 413
      ? status(413, 'RequestEntityTooLarge', `Request entity too large: ${e.message}`)
      : status(422, 'Invalid', e.message);
  }
  if (jsonBounds(patched, MAX_OBJECT_DEPTH, BODY_LIMIT_BYTES) !== undefined)
    return status(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: the patched namespace is deeper or larger than an object may be`,
    );
  return readNamespaceUpdate(old, patched);
}
