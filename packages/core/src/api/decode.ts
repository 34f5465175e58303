/**
 * Strict decoding of a v1 Pod against WIRE_POD_SCHEMA (./pod-schema.ts), with the API server's texts: a
 * field no schema lists is `unknown field "spec.foo"`, a wrong JSON type is `json: cannot unmarshal number
 * into field spec.x of type int32`, a bad quantity the decoder's quantity message. Nulls drop (as Go leaves a
 * field at its zero value), a bare number in a ResourceList is read as its text.
 *
 * Called by decodePod (./validation.ts) once per manifest; pure, browser-safe. A valid manifest costs one
 * compiled check; the errors are formatted only when it fails.
 */

import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import { WIRE_POD_SCHEMA } from './pod-schema.ts';
import { QUANTITY_MSG } from './quantity.ts';
import { fieldPath, lazyCheck } from './schema-check.ts';
import type { StatusCause } from './v1.ts';

export interface Decoded {
  value: unknown;
  /** the decoder's messages, in document order (a message may repeat) */
  errors: string[];
  /** one cause per bad field, in document order; unknown fields included */
  causes: StatusCause[];
}

const checkWirePod = lazyCheck(WIRE_POD_SCHEMA);

/** Decodes a parsed manifest: the value without nulls, and every mismatch with the schema. */
export function decodeStrict(raw: unknown): Decoded {
  const value = normalize(raw, WIRE_POD_SCHEMA);
  if (value === undefined || checkWirePod(value)) return { value, errors: [], causes: [] };
  return { value, ...formatErrors(WIRE_POD_SCHEMA, value) };
}

/**
 * TypeBox's errors for `value` as the API server's: one per field (the first TypeBox gives), sorted in the
 * order the fields appear in the manifest.
 */
export function formatErrors(schema: TSchema, value: unknown): Omit<Decoded, 'value'> {
  const order = documentOrder(value);
  const seen = new Set<string>();
  const found: { at: number; message?: string; cause: StatusCause }[] = [];
  for (const e of Value.Errors(schema, value)) {
    // an array's null item: the decoder leaves the zero value, validation reports what is missing
    if (e.value === undefined || seen.has(e.path)) continue;
    seen.add(e.path);
    const field = fieldPath(value, e.path);
    const at = order.get(e.path) ?? Number.MAX_SAFE_INTEGER;
    const s = e.schema as TSchema & { goType?: string; quantity?: boolean };
    if (e.type === ValueErrorType.ObjectAdditionalProperties) {
      const message = `unknown field "${field}"`;
      found.push({ at, cause: { field, reason: 'FieldValueInvalid', message } });
    } else if (s.quantity) {
      found.push({
        at,
        message: QUANTITY_MSG,
        cause: { field, reason: 'FieldValueInvalid', message: QUANTITY_MSG },
      });
    } else {
      const message = `json: cannot unmarshal ${jsonKind(e.value)} into field ${field || '<root>'} of type ${goTypeOf(s)}`;
      found.push({ at, message, cause: { field, reason: 'FieldValueTypeInvalid', message } });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return {
    errors: found.flatMap((f) => (f.message ? [f.message] : [])),
    causes: found.map((f) => f.cause),
  };
}

function goTypeOf(s: TSchema & { goType?: string }): string {
  if (s.goType) return s.goType;
  if (s.type === 'boolean') return 'bool';
  return typeof s.type === 'string' ? s.type : 'object';
}

/** Every JSON pointer in `value`, numbered depth-first in key order (the order a decoder meets them). */
function documentOrder(value: unknown): Map<string, number> {
  const order = new Map<string, number>();
  const visit = (v: unknown, path: string) => {
    order.set(path, order.size);
    if (typeof v !== 'object' || v === null) return;
    for (const [k, sub] of Object.entries(v))
      visit(sub, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(value, '');
  return order;
}

/**
 * `v` read as the decoder reads it against `t`: nulls dropped (an array's null item left undefined), a
 * number in a ResourceList turned into its text, unknown keys kept for the check to name. Objects are copied
 * key by key as own properties, so a `__proto__` key from JSON stays a key.
 */
function normalize(v: unknown, t: TSchema | undefined): unknown {
  if (v === null || v === undefined) return undefined;
  if (t === undefined) return v;
  const s = t as TSchema & { quantity?: boolean };
  if (s.quantity && typeof v === 'number') return String(v);
  if (Array.isArray(v)) return t.type === 'array' ? v.map((item) => normalize(item, t.items)) : v;
  if (typeof v !== 'object' || t.type !== 'object') return v;
  const props = t.properties as Record<string, TSchema> | undefined;
  const pattern = t.patternProperties ? (Object.values(t.patternProperties)[0] as TSchema) : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    const sub = props && Object.hasOwn(props, k) ? props[k] : pattern;
    const w = sub === undefined ? val : normalize(val, sub);
    if (w !== undefined) setOwn(out, k, w);
  }
  return out;
}

/**
 * out[k] = v as an own property, whatever k is: a plain assignment to `__proto__` would set the prototype
 * (or do nothing, for a string), so such a key would vanish before validation could refuse it.
 */
function setOwn(out: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v;
}
