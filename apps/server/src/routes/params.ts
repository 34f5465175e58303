/**
 * Route parameters and query strings declared with TypeBox: the routes of this folder give their schemas
 * (`schema: { params, querystring }`) with `validatorCompiler: checkParams`, and the TypeBox type provider
 * types `req.params` / `req.query` from them.
 *
 * checkParams reads a query string strictly before the check: only plain decimal digits become an integer
 * (no exponent, hex or blanks, and no sign unless the schema allows one: `?limit=1e3` stays a string and is
 * refused); a boolean is read as Go's strconv.ParseBool reads it, as the apiserver does (1 t T TRUE true True,
 * 0 f F FALSE false False), and empty is false. A value that does not pass answers 400 with a v1 Status naming
 * the parameter and what it must be (status.ts badParam: `invalid value for ?since="abc": must be a
 * non-negative integer`; the Kubernetes-API parameters marked `apiserver` in the apiserver's own words:
 * `limit: Invalid value: "x": must be an integer`), thrown as a StatusError that the error handler
 * (context.ts) sends. Runs in Fastify's validation step, after the onRequest hooks (the access check, the
 * repeated-parameter refusal), once per request. The Kubernetes-API list and watch code, which reads the
 * query of routes it does not declare, runs the same check through compileQuery.
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Status } from '@syncscope/core/api';
import type { FastifySchemaCompiler } from 'fastify';
import { badParam, badRequest, intRangeText, StatusError } from '../status.ts';

/**
 * What a parameter must be, in words, for the Status of a bad value; `apiserver`: said as the apiserver says
 * it (`<param>: Invalid value: "<value>": <want>`); `signed`: an integer that may carry a minus sign.
 */
type Described = TSchema & { want?: string; apiserver?: boolean; signed?: boolean };

/** An optional integer query parameter in [min, max]. */
export const IntQuery = (min = 0, max = Number.MAX_SAFE_INTEGER) =>
  Type.Optional(Type.Integer({ minimum: min, maximum: max, want: intRangeText(min, max) }));

/** An optional integer query parameter as the apiserver reads it: any sign, refused in its words. */
export const KubeIntQuery = () =>
  Type.Optional(Type.Integer({ want: 'must be an integer', apiserver: true, signed: true }));

/** An optional boolean query parameter: a strconv.ParseBool spelling (GO_BOOLS) or empty (false). */
export const BoolQuery = () => Type.Optional(Type.Boolean({ want: 'must be true or false' }));

/** An optional string query parameter matching `pattern` (its flags kept: `u` for \p{...} classes). */
export const StringQuery = (pattern: RegExp, want: string) => Type.Optional(Type.RegExp(pattern, { want }));

/** An optional string query parameter, any text (read by the handler with its own rules). */
export const TextQuery = () => Type.Optional(Type.String());

/**
 * A cursor of the node rows (../node-rows/store.ts) as a client hands it back: "<run>.<batch>", the run in
 * base 36 and the batch a decimal count. Only the spelling is checked here; a well-spelt cursor of another
 * run, or from the future, is the store's to answer (with every row).
 */
const CURSOR = /^[0-9a-z]{1,16}\.\d{1,15}$/;

/** A path segment. */
export const PathParam = () => Type.String();

const DIGITS = /^\d{1,16}$/;
/** Signed, and as long as the apiserver's int64 allows (past 2^53 the number is near, as before). */
const SIGNED_DIGITS = /^-?\d{1,19}$/;

/** Go's strconv.ParseBool spellings, and empty (an absent value: false). */
const GO_BOOLS: ReadonlyMap<string, boolean> = new Map([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((s) => [s, true] as const),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False', ''].map((s) => [s, false] as const),
]);

/** The query or params object with integers and booleans read from their text; other values as they came. */
function convert(props: Record<string, Described>, data: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    const p = Object.hasOwn(props, k) ? props[k] : undefined;
    // the apiserver reads an empty value as an absent one
    if (v === '' && p?.apiserver) continue;
    if (typeof v === 'string' && p?.type === 'integer' && (p.signed ? SIGNED_DIGITS : DIGITS).test(v))
      out[k] = Number(v);
    else if (typeof v === 'string' && p?.type === 'boolean' && GO_BOOLS.has(v)) out[k] = GO_BOOLS.get(v);
    else out[k] = v;
  }
  return out;
}

/** A params or query object read and checked against `schema`: the typed value, or the 400 Status. */
export type QueryCheck<T> = (data: unknown) => { value: T; error?: undefined } | { error: Status };

/** Compiles `schema` once into the check every route's params and query go through. */
export function compileQuery<S extends TObject>(schema: S): QueryCheck<Static<S>> {
  const compiled = TypeCompiler.Compile(schema);
  const props = (schema.properties ?? {}) as Record<string, Described>;
  return (data) => {
    const value = convert(props, typeof data === 'object' && data !== null ? data : {});
    if (compiled.Check(value)) return { value };
    const first = compiled.Errors(value).First();
    const key = (first?.path ?? '').slice(1).split('/')[0] ?? '';
    const raw = (data as Record<string, unknown> | null)?.[key];
    const text = raw === undefined ? '' : String(raw);
    const p = Object.hasOwn(props, key) ? props[key] : undefined;
    const want = p?.want ?? first?.message ?? 'is invalid';
    if (p?.apiserver) return { error: badRequest(`${key}: Invalid value: ${JSON.stringify(text)}: ${want}`) };
    return { error: badParam(key, text, want) };
  };
}

/** An optional node-rows cursor query parameter (CURSOR). */
const CursorQuery = () => StringQuery(CURSOR, 'must be a cursor this server gave, "<run>.<batch>"');

const readSinceCursor = compileQuery(Type.Object({ since: CursorQuery() }));

/**
 * The `?since=` of the node streams (rows, aggregates), checked as CursorQuery: the cursor, undefined when
 * absent, or the 400 Status naming `since`. For the WebSocket routes, which read their query before the
 * upgrade (ws-stream-route.ts) rather than through a route schema.
 */
export function cursorParam(since: unknown): string | undefined | Status {
  const r = readSinceCursor(since === undefined ? {} : { since });
  return r.error ?? r.value.since;
}

/** Fastify's validator compiler for the params and query schemas above (compiled once per route). */
const checkParams: FastifySchemaCompiler<unknown> = (def) => {
  const check = compileQuery(def.schema as TObject);
  return (data: unknown) => {
    const r = check(data);
    return r.error ? { error: new StatusError(r.error) } : { value: r.value };
  };
};

/** A route's options: its access (../access.ts) and its params / query schemas, checked by checkParams. */
export const checked = <A extends object, S extends object>(access: A, schema: S) => ({
  ...access,
  schema,
  validatorCompiler: checkParams,
});
