/**
 * The first page's earliest requests, the node and the pods table's rows (on a pod's page that pod's row,
 * its header's first paint): sent by the boot module (main.tsx) as soon as the app's code has arrived (on a
 * pod's page at once, beside the app's download: one row costs the server next to nothing), or by root.tsx
 * before the first render if that comes first, so the server answers while the browser evaluates the app.
 * The query layer (queries.ts `prefetchFirstPage`) takes each once as the first fetch of its query, beside
 * the aggregates it sends itself; every later fetch goes to the server again. No pods list is sent: the rows answer the
 * node page's first screen. A pod's page sends its own first requests (pod-queries.ts).
 *
 * Contract: `startFirstRequests` is called after `initToken` (so a kept token is sent) and before anything
 * renders; only its first call sends anything. Nothing here blocks. A refused request (401 before the token is given) is
 * cached by the query as its error, as any failed fetch is.
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { NodeRowsPage } from '../lib/node-rows-cache.ts';
import { parseRoute } from '../lib/route.ts';
import { getNode, getNodeRows, getPodRow } from './client.ts';

let node: Promise<NodeInfo> | undefined;
let rows: Promise<NodeRowsPage> | undefined;
let podRow: { key: string; page: Promise<NodeRowsPage> } | undefined;

/** A request whose failure is handled by whoever takes it (or by nobody, if nobody does). */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

let started = false;

/** Sends the requests, once (later calls do nothing). */
export function startFirstRequests(): void {
  if (started) return;
  started = true;
  node = quiet(getNode());
  const route = parseRoute(window.location.hash);
  if (route.view === 'node') rows = quiet(getNodeRows());
  if (route.view === 'pod')
    podRow = { key: `${route.namespace}/${route.name}`, page: quiet(getPodRow(route.namespace, route.name)) };
}

/** The early row of the pod `namespace/name`, handed out once (none for another pod, or none sent). */
export function takeFirstPodRow(namespace: string, name: string): Promise<NodeRowsPage> | undefined {
  const p = podRow?.key === `${namespace}/${name}` ? podRow.page : undefined;
  podRow = undefined;
  return p;
}

/** The early rows request, handed out once (none when the page did not open on the node). */
export function takeFirstRows(): Promise<NodeRowsPage> | undefined {
  const p = rows;
  rows = undefined;
  return p;
}

/** The early node request, handed out once. */
export function takeFirstNode(): Promise<NodeInfo> | undefined {
  const p = node;
  node = undefined;
  return p;
}
