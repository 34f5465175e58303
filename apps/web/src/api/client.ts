/**
 * Fetch helpers for the Syncscope REST API (same origin; the Vite dev server proxies /api). Every error
 * the server returns is a Kubernetes Status object; it is thrown as an ApiError that keeps it, so forms can
 * show the field and reason of each cause.
 */
import { isStatus, type Pod, type PodList, type Status } from '@syncscope/core/api';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import type { NodeRowsPage } from '../lib/node-rows-cache.ts';
import { authFetch } from './auth.ts';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status?: Status,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

async function request<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await authFetch(path, { ...init, headers: { accept: 'application/json', ...init?.headers } });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    if (isStatus(body)) throw new ApiError(res.status, body.message, body);
    throw new ApiError(res.status, `${init?.method ?? 'GET'} ${path}: ${res.status} ${res.statusText}`);
  }
  return body as T;
}

export const getPods = (): Promise<PodList> => request('/api/v1/pods');
export const getNode = (): Promise<NodeInfo> => request('/api/v1/node');
export const getNodeRows = (): Promise<NodeRowsPage> => request('/api/v1/node/rows');
export const getNodeAggregates = (): Promise<unknown> => request('/api/v1/node/aggregates');

/** The node rows page of one pod: its row alone, or no row. */
export const getPodRow = (namespace: string, name: string): Promise<NodeRowsPage> =>
  request(`/api/v1/node/rows?${new URLSearchParams({ namespace, name })}`);

/** The pod `namespace/name` as a list of it alone, empty when the node has no such pod (a 404). */
export async function getOnePod(namespace: string, name: string): Promise<PodList> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}`;
  try {
    return { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [await request<Pod>(path)] };
  } catch (e) {
    if (e instanceof ApiError && e.code === 404)
      return { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [] };
    throw e;
  }
}

/** Creates a pod from a manifest (YAML or JSON text). */
export function createPod(namespace: string, manifest: string): Promise<Pod> {
  return request(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/yaml' },
    body: manifest,
  });
}

export function deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<unknown> {
  const q = gracePeriodSeconds === undefined ? '' : `?gracePeriodSeconds=${gracePeriodSeconds}`;
  return request(`/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}${q}`, {
    method: 'DELETE',
  });
}

/** One page of GET /api/v1/trace. */
export interface TracePage {
  items: TraceEvent[];
  /** The `since` that continues after this page. */
  next: number | null;
  /** The oldest seq the server still holds. */
  oldest: number | null;
  /** The newest seq recorded (whatever the filter). */
  newest?: number;
}

export function getTracePage(opts: { since?: number; podUID?: string; limit?: number }): Promise<TracePage> {
  const q = new URLSearchParams();
  if (opts.since !== undefined) q.set('since', String(opts.since));
  if (opts.podUID) q.set('podUID', opts.podUID);
  if (opts.limit !== undefined) q.set('limit', String(opts.limit));
  return request(`/api/v1/trace?${q}`);
}

/** No pod has this UID (Kubernetes UIDs are UUIDs): a filter that matches nothing. */
const NO_POD = 'no-such-pod';

/**
 * The oldest and newest seq the server holds (null when it holds none): one filtered page that matches
 * nothing, whose `next` is then the newest seq recorded.
 */
export async function getTraceBounds(): Promise<{ oldest: number | null; newest: number }> {
  const page = await getTracePage({ since: 0, podUID: NO_POD, limit: 1 });
  return { oldest: page.oldest, newest: page.newest ?? page.next ?? 0 };
}

const MAX_TRACE_PAGES = 50;
/** Events asked for per page of a pod's trace; a page with fewer is the last one. */
const POD_TRACE_PAGE = 10_000;

/** All of a pod's trace the server holds, following `next` until a page comes back short. */
export async function getPodTrace(podUID: string): Promise<TraceEvent[]> {
  const out: TraceEvent[] = [];
  let since = 0;
  for (let page = 0; page < MAX_TRACE_PAGES; page++) {
    const res = await getTracePage({ since, podUID, limit: POD_TRACE_PAGE });
    out.push(...res.items);
    const last = res.items[res.items.length - 1]?.seq ?? since;
    const next = res.next ?? last;
    if (res.items.length < POD_TRACE_PAGE || next <= since) break;
    since = next;
  }
  return out;
}
