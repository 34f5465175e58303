/**
 * The node page's writes and the simulated node's controls:
 *   GET  /api/v1/examples       the example manifests for the apply editor
 *   GET  /api/v1/sim            { simulated, speed }
 *   GET  /api/v1/sim/faults     the lasting faults in effect
 *   POST /api/v1/sim/faults     inject a fault (recorded as a `sim.fault` trace event); clear one or all
 *   PUT  /api/v1/sim/speed      how much faster than wall time the simulated node runs
 * Errors are Kubernetes Status objects, thrown as ApiError (client.ts) so a form can show each cause.
 */

import { authFetch, downloadWithToken } from './auth.ts';
import { ApiError } from './client.ts';

export interface Example {
  file: string;
  description: string;
  startup: boolean;
  yaml: string;
}

export interface SimInfo {
  simulated: boolean;
  speed: number;
}

/** The body of POST /api/v1/sim/faults. */
export type FaultRequest =
  | { kind: 'containerExit'; namespace: string; pod: string; container: string; exitCode: number }
  | { kind: 'containerUnknown'; namespace: string; pod: string; container: string }
  | { kind: 'sandboxDie'; namespace: string; pod: string }
  | { kind: 'outage'; seconds: number }
  | { kind: 'failNext'; method: string; count: number; code?: string }
  | { kind: 'imageMissing'; image: string }
  | { kind: 'imageRestore'; image: string }
  | { kind: 'slowPull'; image: string; seconds: number }
  | { kind: 'latency'; ms: number }
  | { kind: 'clear' };

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await authFetch(path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const st = parsed as { kind?: string; message?: string } | undefined;
    if (st?.kind === 'Status') throw new ApiError(res.status, st.message ?? '', parsed as never);
    throw new ApiError(res.status, `${method} ${path}: ${res.status} ${res.statusText}`);
  }
  return parsed as T;
}

export const getExamples = (): Promise<{ items: Example[] }> => call('GET', '/api/v1/examples');
export const getSim = (): Promise<SimInfo> => call('GET', '/api/v1/sim');
export const postFault = (fault: FaultRequest): Promise<{ ok: true; detail: string }> =>
  call('POST', '/api/v1/sim/faults', fault);
/** A lasting fault in effect (the server's ActiveFault): `kind` and `target` name it for a clear. */
export interface ActiveFault {
  kind: 'outage' | 'failNext' | 'latency' | 'imageMissing' | 'slowPull';
  target?: string;
  detail: string;
  remainingMs?: number;
}
export const getActiveFaults = (): Promise<{ items: ActiveFault[] }> => call('GET', '/api/v1/sim/faults');
/** Ends one fault (as listed), or every one when none is given. */
export const clearFaults = (
  one?: Pick<ActiveFault, 'kind' | 'target'>,
): Promise<{ ok: true; detail: string }> =>
  call('POST', '/api/v1/sim/faults', {
    kind: 'clear',
    ...(one ? { fault: one.kind, ...(one.target !== undefined ? { target: one.target } : {}) } : {}),
  });
export const putSpeed = (speed: number): Promise<{ speed: number }> =>
  call('PUT', '/api/v1/sim/speed', { speed });

/** The NDJSON export of the whole node's trace, or of one pod's (no token in it: see downloadTraceExport). */
export function traceExportUrl(podUID?: string): string {
  return podUID ? `/api/v1/trace/export?podUID=${encodeURIComponent(podUID)}` : '/api/v1/trace/export';
}

/** Saves the export as `filename`, fetched with the token's header. */
export function downloadTraceExport(filename: string, podUID?: string): Promise<void> {
  return downloadWithToken(traceExportUrl(podUID), filename);
}

/** The namespace a manifest names (metadata.namespace), or "default". A light read: the server parses for real. */
export function manifestNamespace(manifest: string): string {
  const json = manifest.trimStart().startsWith('{');
  if (json) {
    try {
      const ns = (JSON.parse(manifest) as { metadata?: { namespace?: unknown } }).metadata?.namespace;
      return typeof ns === 'string' && ns ? ns : 'default';
    } catch {
      return 'default';
    }
  }
  const m = /^metadata:\s*\n((?:[ \t]+.*\n?|\s*\n)*)/m.exec(manifest);
  const ns = m?.[1] ? /^[ \t]+namespace:\s*["']?([A-Za-z0-9.-]+)["']?\s*$/m.exec(m[1]) : null;
  return ns?.[1] ?? 'default';
}
