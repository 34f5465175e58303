/**
 * How every Kubernetes-API read answers: a list (or one object) as JSON, or as a Table when the request's
 * Accept asks for one (table/table.ts); a list query that is not valid as the API server's 400. Shared by
 * the pod, event, node and namespace routes. Also how one watch writes its events (tableEncoder): a
 * WatchEvent a line, the object as it is, or, when the Accept asks for a Table (kubectl's `get -w`), a Table
 * of one row, as the apiserver's watch does: the first carries the column definitions and the later ones none
 * (the client keeps the first ones); its resourceVersion is the object's.
 */
import { isStatus, type ObjectMeta, type Status } from '@syncscope/core/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, sendStatus, status } from '../status.ts';
import { type ListQuery, parseListOptions, readListQuery, selectPage } from './list-options.ts';
import type { ResourceVersions } from './resource-version.ts';
import { includeObjectParam, type Printer, tableRequested, toTable } from './table/table.ts';

/** `<resource> "<name>" not found`, as the API server says it for any resource. */
export const notFoundOf = (resource: string, name: string): Status =>
  status(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource });

export interface ListSpec<T extends { metadata: ObjectMeta }> {
  /** e.g. PodList */
  listKind: string;
  printer: Printer<T>;
  /** the fields ?fieldSelector= may name, and how each is read off an object */
  fieldLabels: readonly string[];
  fieldOf(obj: T, field: string): string;
}

/** Answers a list request for `items` (every object of the resource in scope, unfiltered). */
export function sendList<T extends { metadata: ObjectMeta }>(
  req: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
  spec: ListSpec<T>,
  items: readonly T[],
  versions: ResourceVersions,
  now: number,
): FastifyReply {
  const query = readListQuery(req.query);
  if (query.error) return sendStatus(reply, query.error);
  const rv = versions.listVersion();
  const opts = parseListOptions(query.value, spec.fieldLabels, rv);
  if (isStatus(opts)) return sendStatus(reply, opts);
  const page = selectPage(items, opts, spec.fieldOf, rv);
  const table = tableRequested(req.headers.accept);
  if (table) {
    const include = includeObjectParam(req.query.includeObject);
    if (!include) return sendStatus(reply, badIncludeObject(req.query.includeObject));
    return reply.send(
      toTable(spec.printer, page.items, { version: table, include, now, metadata: page.metadata }),
    );
  }
  return reply.send({ apiVersion: 'v1', kind: spec.listKind, metadata: page.metadata, items: page.items });
}

/** Answers a get of one object (a Table of one row when asked). */
export function sendObject<T extends { metadata: ObjectMeta }>(
  req: FastifyRequest<{ Querystring: ListQuery }>,
  reply: FastifyReply,
  printer: Printer<T>,
  obj: T,
  now: number,
): FastifyReply {
  const table = tableRequested(req.headers.accept);
  if (!table) return reply.send(obj);
  const include = includeObjectParam(req.query.includeObject);
  if (!include) return sendStatus(reply, badIncludeObject(req.query.includeObject));
  const metadata = obj.metadata.resourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {};
  return reply.send(toTable(printer, [obj], { version: table, include, now, metadata }));
}

const badIncludeObject = (v: unknown) =>
  badRequest(
    `includeObject: Unsupported value: ${JSON.stringify(String(v))}: supported values: "None", "Metadata", "Object"`,
  );

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A line for one event: `{"type":…,"object":…}\n`. */
export type WatchEncoder<T> = (type: WatchType, obj: T) => string;

/** The plain line (the object as JSON). */
export const plainLine = <T>(type: WatchType, obj: T): string =>
  `{"type":"${type}","object":${JSON.stringify(obj)}}\n`;

/**
 * The encoder a watch request asks for: undefined for a plain watch, a Table encoder when `accept` asks for
 * a Table, or the 400 Status of a bad `includeObject`. `now` is read at each event (the AGE column).
 */
export function tableEncoder<T extends { metadata: ObjectMeta }>(
  accept: string | undefined,
  includeObject: unknown,
  printer: Printer<T>,
  now: () => number,
): WatchEncoder<T> | Status | undefined {
  const version = tableRequested(accept);
  if (!version) return undefined;
  const include = includeObjectParam(includeObject);
  if (!include) return badIncludeObject(includeObject);
  let headers = true;
  return (type, obj) => {
    const rv = obj.metadata.resourceVersion;
    const table = toTable(printer, [obj], {
      version,
      include,
      now: now(),
      metadata: rv ? { resourceVersion: rv } : {},
    });
    if (!headers) table.columnDefinitions = [];
    headers = false;
    return plainLine(type, table);
  };
}
