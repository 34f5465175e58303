/**
 * The query of a list request as the API server reads it: labelSelector, fieldSelector, limit, continue,
 * resourceVersion (+ resourceVersionMatch), and how a list is cut into pages.
 *
 * Lists are answered from the current state: every item is in it, in (namespace, name) order, as the
 * API server lists from storage. A page's continue token holds the list's resourceVersion and the last key
 * served; the next page starts after that key in the state at that time (the API server serves the
 * snapshot of the first page instead: here an item changed between two pages shows as it is now).
 * `watch` and the watch-only parameters are not read here (watch-routes.ts).
 *
 * The query is read through the TypeBox schema machinery every route uses (routes/params.ts): readListQuery
 * turns `limit` into a number or answers the apiserver's 400; the selectors, resourceVersion and continue
 * stay text for parseListOptions, whose errors need the value's meaning.
 */

import { type Static, Type } from '@sinclair/typebox';
import type { ObjectMeta, Status } from '@syncscope/core/api';
import { compileQuery, KubeIntQuery, TextQuery } from '../routes/params.ts';
import { badRequest, status } from '../status.ts';
import {
  type FieldRequirement,
  fieldsMatch,
  type LabelRequirement,
  labelsMatch,
  parseFieldSelector,
  parseLabelSelector,
} from './selectors.ts';

/** The list query as it arrives (the routes' Querystring type). */
export interface ListQuery {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: string;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  includeObject?: string;
}

const ListQuerySchema = Type.Object({
  labelSelector: TextQuery(),
  fieldSelector: TextQuery(),
  limit: KubeIntQuery(),
  continue: TextQuery(),
  resourceVersion: TextQuery(),
  resourceVersionMatch: TextQuery(),
  includeObject: TextQuery(),
});

/** The list query read: `limit` a number (any sign), the rest text; or the 400 Status. */
export const readListQuery = compileQuery(ListQuerySchema);

export interface ListOptions {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  /** 0: no limit */
  limit: number;
  /** the key (namespace/name) after which this page starts */
  after?: string;
}

/** A resourceVersion parameter: empty, or an unsigned integer (etcd's ParseResourceVersion). */
function resourceVersionError(rv: string | undefined, current: number): Status | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d{1,19}$/.test(rv)) {
    return badRequest(
      `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`,
    );
  }
  // asking for a state newer than any this server has issued (a client of another server, say)
  if (Number(rv) > current) {
    return status(504, 'Timeout', `Too large resource version: ${rv}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version', field: '' }],
    });
  }
  return undefined;
}

/** Reads the list query, or the 400 (or 504) Status the API server answers to it. */
export function parseListOptions(
  q: Static<typeof ListQuerySchema>,
  fieldLabels: readonly string[],
  currentVersion: number,
): ListOptions | Status {
  const labels = parseLabelSelector(q.labelSelector ?? '');
  if (!labels.ok) return badRequest(labels.message);
  const fields = parseFieldSelector(q.fieldSelector ?? '', fieldLabels);
  if (!fields.ok) return badRequest(fields.message);
  const limit = Math.max(0, q.limit ?? 0);
  const match = q.resourceVersionMatch;
  if (match !== undefined && match !== '' && match !== 'NotOlderThan' && match !== 'Exact') {
    return status(
      422,
      'Invalid',
      `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
    );
  }
  const rvError = resourceVersionError(q.resourceVersion, currentVersion);
  if (rvError) return rvError;
  const opts: ListOptions = { labels: labels.value, fields: fields.value, limit };
  if (q.continue) {
    const after = decodeContinue(q.continue);
    if (after === undefined)
      return badRequest(
        'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
      );
    opts.after = after;
  }
  return opts;
}

function encodeContinue(rv: number, key: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: key })).toString('base64url');
}

function decodeContinue(token: string): string | undefined {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      v?: unknown;
      start?: unknown;
    };
    return v.v === 'meta.k8s.io/v1' && typeof v.start === 'string' ? v.start : undefined;
  } catch {
    return undefined;
  }
}

const objectKey = (m: ObjectMeta) => `${m.namespace ?? ''}/${m.name}`;

/** One page of the matching items (sorted by key), with the list metadata the API server gives it. */
export function selectPage<T extends { metadata: ObjectMeta }>(
  all: readonly T[],
  opts: ListOptions,
  fieldOf: (obj: T, field: string) => string,
  resourceVersion: number,
): { items: T[]; metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } } {
  const matching = all
    .filter(
      (o) => labelsMatch(opts.labels, o.metadata.labels) && fieldsMatch(opts.fields, (f) => fieldOf(o, f)),
    )
    .map((o) => ({ key: objectKey(o.metadata), o }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const after = opts.after;
  const start = after === undefined ? 0 : matching.findIndex((x) => x.key > after);
  const rest = start < 0 ? [] : matching.slice(start);
  const page = opts.limit > 0 ? rest.slice(0, opts.limit) : rest;
  const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = {
    resourceVersion: String(resourceVersion),
  };
  const last = page[page.length - 1];
  if (rest.length > page.length && last) {
    metadata.continue = encodeContinue(resourceVersion, last.key);
    metadata.remainingItemCount = rest.length - page.length;
  }
  return { items: page.map((x) => x.o), metadata };
}
