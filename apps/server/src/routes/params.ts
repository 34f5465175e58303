/**
 * Route parameters and query strings declared with TypeBox: the routes of this folder give their schemas
 * (`schema: { params, querystring }`) with `validatorCompiler: checkParams`, and the TypeBox type provider
 * types `req.params` / `req.query` from them.
 *
 * checkParams reads a query string strictly before the check: only plain decimal digits become an integer
 * (no sign, exponent, hex or blanks: `?limit=1e3` stays a string and is refused), `true` / `false` / empty
 * become a boolean. A value that does not pass answers 400 with a v1 Status naming the parameter and what it
 * must be (status.ts badParam: `invalid value for ?since="abc": must be a non-negative integer`), thrown as a
 * StatusError that the error handler (context.ts) sends. Runs in Fastify's validation step, after the onRequest
 * hooks (the access check, the repeated-parameter refusal), once per request.
 */
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { badParam, intRangeText, StatusError } from '../status.ts';

/** What a parameter must be, in words, for the Status of a bad value. */
type Described = TSchema & { want?: string };

/** An optional integer query parameter in [min, max]. */
export const IntQuery = (min = 0, max = Number.MAX_SAFE_INTEGER) =>
  Type.Optional(Type.Integer({ minimum: min, maximum: max, want: intRangeText(min, max) }));

/** An optional boolean query parameter: `true`, `false` or empty (false). */
export const BoolQuery = () => Type.Optional(Type.Boolean({ want: 'must be true or false' }));

/** An optional string query parameter matching `pattern` (its flags kept: `u` for \p{...} classes). */
export const StringQuery = (pattern: RegExp, want: string) => Type.Optional(Type.RegExp(pattern, { want }));

/** An optional string query parameter, any text (read by the handler with its own rules). */
export const TextQuery = () => Type.Optional(Type.String());

/** A path segment. */
export const PathParam = () => Type.String();

const DIGITS = /^\d{1,16}$/;

/** The query or params object with integers and booleans read from their text; other values as they came. */
function convert(schema: TSchema, data: unknown): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const props = (schema as TObject).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    const p = Object.hasOwn(props, k) ? props[k] : undefined;
    if (typeof v === 'string' && p?.type === 'integer' && DIGITS.test(v)) out[k] = Number(v);
    else if (typeof v === 'string' && p?.type === 'boolean' && (v === 'true' || v === 'false' || v === ''))
      out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}

/** Fastify's validator compiler for the params and query schemas above (compiled once per route). */
const checkParams: FastifySchemaCompiler<unknown> = (def) => {
  const schema = def.schema as TSchema;
  const compiled = TypeCompiler.Compile(schema);
  const props = ((schema as TObject).properties ?? {}) as Record<string, Described>;
  return (data: unknown) => {
    const value = convert(schema, data ?? {});
    if (compiled.Check(value)) return { value };
    const first = compiled.Errors(value).First();
    const key = (first?.path ?? '').slice(1).split('/')[0] ?? '';
    const raw = (data as Record<string, unknown> | null)?.[key];
    const want = (Object.hasOwn(props, key) ? props[key]?.want : undefined) ?? first?.message ?? 'is invalid';
    return { error: new StatusError(badParam(key, raw === undefined ? '' : String(raw), want)) };
  };
};

/** A route's options: its access (../access.ts) and its params / query schemas, checked by checkParams. */
export const checked = <A extends object, S extends object>(access: A, schema: S) => ({
  ...access,
  schema,
  validatorCompiler: checkParams,
});
