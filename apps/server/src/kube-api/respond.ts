/**
 * How every Kubernetes-API read answers: a list (or one object) as JSON, or as a Table when the request's
 * Accept asks for one (table/table.ts); a list query that is not valid as the API server's 400. Shared by
 * the pod, event, node and namespace routes.
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
