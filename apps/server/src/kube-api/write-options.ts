/**
 * What every pod write reads besides its body, as the apiserver's handlers read it (handlers/create.go,
 * update.go, patch.go, delete.go with metainternalversion/validation):
 *   - `dryRun`: absent, or `All` (the write is checked and answered as if made, and nothing is stored or
 *     run); any other value is 422 Invalid naming the options kind, e.g.
 *     `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"x"}: supported values: "All"`;
 *   - `fieldValidation`: absent, Ignore, Warn or Strict, else 422 the same way. With Ignore or Warn a field
 *     the Pod schema does not know is dropped from a create or update body before decoding instead of
 *     refused (Strict, and this server's default, refuses it: `strict decoding error: unknown field
 *     "spec.foo"`); with Warn each is told back in a `Warning: 299 - "unknown field \"spec.foo\""` header,
 *     which kubectl prints. The walk follows WIRE_POD_SCHEMA, the schema the server decodes with, in
 *     linear time. A PATCH is decoded strictly whatever is asked.
 * and the body's type: a create or update whose object leaves out apiVersion or kind gets those of the path
 * (`v1`, `Pod`), as the apiserver's decoder defaults them, so a client that sends only metadata and spec
 * (the Python client's models) is understood.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import type { Status } from '@syncscope/core/api';
import { WIRE_POD_SCHEMA } from '@syncscope/core/api/pod-schema';
import { MAX_GRACE_PERIOD_SECONDS } from '@syncscope/core/api/validation';
import type { FastifyReply } from 'fastify';
import { IntQuery, TextQuery } from '../routes/params.ts';
import { status } from '../status.ts';

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/**
 * The query of the pod write routes (routes/pods.ts), checked by the routes' compiled schema: the options
 * as text, read by readWriteOptions and readDeleteOptions in the apiserver's words; a DELETE's
 * gracePeriodSeconds an integer up to the longest grace a pod may have.
 */
export const WriteQuery = Type.Object({
  dryRun: TextQuery(),
  fieldValidation: TextQuery(),
  fieldManager: TextQuery(),
  gracePeriodSeconds: IntQuery(0, MAX_GRACE_PERIOD_SECONDS),
  propagationPolicy: TextQuery(),
});

export type WriteQueryValue = Static<typeof WriteQuery>;

export interface WriteOptions {
  dryRun: boolean;
  /** What a create or update body is decoded from (applyFieldValidation); as it is if unset. */
  body?: (value: unknown) => unknown;
}

const FIELD_VALIDATION = ['', 'Ignore', 'Strict', 'Warn'];

/** 422 Invalid for an options object, as errors.NewInvalid words it for kind `<kind>.meta.k8s.io`. */
function invalidOptions(kind: OptionsKind, field: string, message: string): Status {
  return status(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    kind,
    causes: [{ field, reason: 'FieldValueNotSupported', message }],
  });
}

/** Go's %#v of a []string, as field.NotSupported prints a bad dryRun. */
const goStrings = (values: string[]) => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

/** The options of a write, or the Status its query earns. */
export function readWriteOptions(
  kind: OptionsKind,
  query: { dryRun?: string; fieldValidation?: string },
): WriteOptions | Status {
  const dryRun = query.dryRun;
  if (dryRun !== undefined && dryRun !== 'All')
    return invalidOptions(
      kind,
      'dryRun',
      `Unsupported value: ${goStrings([dryRun])}: supported values: "All"`,
    );
  const fv = query.fieldValidation;
  if (kind !== 'DeleteOptions' && fv !== undefined && !FIELD_VALIDATION.includes(fv))
    return invalidOptions(
      kind,
      'fieldValidation',
      `Unsupported value: ${JSON.stringify(fv)}: supported values: ${FIELD_VALIDATION.map((v) => JSON.stringify(v)).join(', ')}`,
    );
  return { dryRun: dryRun === 'All' };
}

/** `value` with apiVersion `v1` and kind `Pod` where it leaves them out (an object only; else as it is). */
export function withPodType(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  if (v.apiVersion !== undefined && v.kind !== undefined) return value;
  return { apiVersion: 'v1', kind: 'Pod', ...v };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `value` without the fields `schema` does not know; their paths (`spec.containers[0].foo`) go to `out`. */
function prune(value: unknown, schema: TSchema, path: string, out: string[]): unknown {
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    return items ? value.map((v, i) => prune(v, items, `${path}[${i}]`, out)) : value;
  }
  if (!isObject(value) || schema.type !== 'object') return value;
  const pattern = schema.patternProperties as Record<string, TSchema> | undefined;
  const mapValue = pattern ? Object.values(pattern)[0] : undefined;
  if (mapValue) {
    const m: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) m[k] = prune(v, mapValue, `${path}[${k}]`, out);
    return m;
  }
  const props = (schema.properties ?? {}) as Record<string, TSchema>;
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const field = path ? `${path}.${k}` : k;
    const sub = Object.hasOwn(props, k) ? props[k] : undefined;
    if (sub) kept[k] = prune(v, sub, field, out);
    else if (schema.additionalProperties === false) out.push(field);
    else kept[k] = v;
  }
  return kept;
}

/**
 * The body to decode under `validation`: as it is for Strict (or absent); else without its unknown fields,
 * and with Warn one warning header on `reply` for each.
 */
export function applyFieldValidation(
  value: unknown,
  validation: string | undefined,
  reply: FastifyReply,
): unknown {
  if (validation !== 'Warn' && validation !== 'Ignore') return value;
  const unknown: string[] = [];
  const kept = prune(value, WIRE_POD_SCHEMA, '', unknown);
  if (validation === 'Warn' && unknown.length > 0)
    reply.header(
      'warning',
      unknown.map((f) => `299 - ${JSON.stringify(`unknown field ${JSON.stringify(f)}`)}`),
    );
  return kept;
}
