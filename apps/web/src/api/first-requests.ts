/**
 * The first page's earliest request, the node: sent by the boot module (main.tsx) as soon as the app's code
 * has arrived, or by root.tsx before the first render if that comes first. The query layer (queries.ts
 * `prefetchFirstPage`) takes it once as the first fetch of its query, beside the rows and aggregates it
 * sends itself; every later fetch goes to the server again. No pods list is sent: the rows answer the node
 * page's first screen.
 *
 * Contract: `startFirstRequests` is called after `initToken` (so a kept token is sent) and before anything
 * renders; only its first call sends anything. Nothing here blocks. A refused request (401 before the token is given) is
 * cached by the query as its error, as any failed fetch is.
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { getNode } from './client.ts';

let node: Promise<NodeInfo> | undefined;

/** A request whose failure is handled by whoever takes it (or by nobody, if nobody does). */
function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

let started = false;

/** Sends the request, once (later calls do nothing). */
export function startFirstRequests(): void {
  if (started) return;
  started = true;
  node = quiet(getNode());
}

/** The early node request, handed out once. */
export function takeFirstNode(): Promise<NodeInfo> | undefined {
  const p = node;
  node = undefined;
  return p;
}
