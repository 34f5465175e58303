/**
 * API errors as Kubernetes `Status` objects (apimachinery/pkg/api/errors): one constructor per reason, with
 * the messages the API server writes, so a client that knows kubectl reads them without translation.
 */

import { STATUS_CODES } from 'node:http';
import type { Status, StatusCause } from '@syncscope/core/api';
import type { FastifyReply } from 'fastify';

export function status(code: number, reason: string, message: string, details?: Status['details']): Status {
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

export const badRequest = (message: string, causes?: StatusCause[]) =>
  status(400, 'BadRequest', message, causes && causes.length > 0 ? { causes } : undefined);

/** A validation failure. Kubernetes answers 422 here; this API answers 400, as for every bad input. */
/** 422 Invalid, as errors.NewInvalid words it for a pod: details name the kind (`Pod`) and every field. */
export const invalid = (name: string, message: string, causes: StatusCause[]) =>
  status(422, 'Invalid', message, { name, kind: 'Pod', causes });

export const notFound = (name: string) =>
  status(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' });

export const alreadyExists = (name: string) =>
  status(409, 'AlreadyExists', `pods "${name}" already exists`, { name, kind: 'pods' });

/** A query parameter that is not what it must be, named as the cause's field. */
export const badParam = (param: string, value: string, want: string) =>
  badRequest(`invalid value for ?${param}=${JSON.stringify(value)}: ${want}`, [
    {
      field: param,
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${JSON.stringify(value)}: ${want}`,
    },
  ]);

export function sendStatus(reply: FastifyReply, s: Status): FastifyReply {
  return reply.code(s.code).type('application/json').send(s);
}

/**
 * A non-negative integer query parameter in [min, max]: the number, undefined if absent, or a Status if
 * malformed (a repeated parameter arrives as an array and is malformed too).
 */
export function intParam(
  param: string,
  v: unknown,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined | Status {
  if (v === undefined) return undefined;
  const s = String(v);
  const n = Number(s);
  if (!/^\d{1,16}$/.test(s) || n < min || n > max || !Number.isSafeInteger(n)) {
    return badParam(param, s, intRangeText(min, max));
  }
  return n;
}

/** What an integer parameter in [min, max] must be, in words. */
export function intRangeText(min: number, max: number): string {
  if (max < Number.MAX_SAFE_INTEGER) return `must be an integer between ${min} and ${max}, inclusive`;
  return min === 0 ? 'must be a non-negative integer' : `must be an integer >= ${min}`;
}

export const methodNotAllowed = (method: string, allowed: string[]) =>
  status(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource: ${method} (allowed: ${allowed.join(', ')})`,
    {},
  );

export const unsupportedMediaType = (contentType: string, accepted: readonly string[]) =>
  status(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format (${contentType}) - accepted media types include: ${accepted.join(', ')}`,
  );

/** Thrown by a handler to answer with a Status; the error handler in context.ts sends it. */
export class StatusError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
}

/** Status reasons by HTTP code, for errors raised by Fastify itself (body too large, bad content type). */
export const REASON_BY_CODE: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'RequestEntityTooLarge',
  414: 'RequestURITooLong',
  415: 'UnsupportedMediaType',
  431: 'RequestHeaderFieldsTooLarge',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/**
 * A whole HTTP/1.1 response carrying `s`, for the socket of a request Node's parser refused before Fastify
 * saw it (headers too large, a malformed request line); the connection is closed after it.
 */
export function rawStatusResponse(s: Status): string {
  const body = JSON.stringify(s);
  return (
    `HTTP/1.1 ${s.code} ${STATUS_CODES[s.code] ?? ''}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`
  );
}
