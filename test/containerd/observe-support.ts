/**
 * The observer side of the observe-mode tests on containerd: an observe-mode server (buildObserveApp) on a CRI
 * endpoint, following a kubelet-format log (and, given access, the API's pods of the node), listening on a free
 * loopback port; a wait on its trace; and a listing of the runtime's sandboxes and containers taken through a
 * client of the test's own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteRuntime } from '@syncscope/core';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import { buildObserveApp, type ObservedApp } from '@syncscope/server/observe';
import type { KubeAccess } from '../../apps/server/src/observe/kube-access.ts';
import { waitOnTrace } from '../support/wait-trace.ts';

export interface Watching {
  app: ObservedApp;
  base: string;
  /** Stops the observer and removes its data dir; safe to call twice. */
  close(): Promise<void>;
}

/** `kube`: the API server to watch the node's pods on as well (--kubeconfig). */
export async function startObserver(
  endpoint: string,
  kubeletLog: string,
  kube?: KubeAccess,
): Promise<Watching> {
  const dir = await mkdtemp(join(tmpdir(), 'syncscope-observer-'));
  const app = await buildObserveApp({
    runtimeEndpoint: endpoint,
    dataDir: dir,
    kubeletLog: { file: kubeletLog },
    ...(kube ? { kube } : {}),
    logger: false,
    warn: () => {},
  });
  const base = await app.app.listen({ port: 0, host: '127.0.0.1' });
  let closed: Promise<void> | undefined;
  return {
    app,
    base,
    close() {
      closed ??= app.close().then(() => rm(dir, { recursive: true, force: true }));
      return closed;
    },
  };
}

/** Resolves when pred holds, checked at each event of the trace; rejects after timeoutMs. */
export function waitOn(
  trace: TraceRecorder,
  what: string,
  pred: () => boolean,
  timeoutMs = 45_000,
): Promise<void> {
  return waitOnTrace(trace, what, pred, timeoutMs);
}

export interface RuntimeSnapshot {
  sandboxes: string[];
  containers: string[];
}

/** The runtime's sandboxes and containers (id, state, attempt), sorted, as a fresh client lists them. */
export async function runtimeSnapshot(endpoint: string): Promise<RuntimeSnapshot> {
  const rt = new RemoteRuntime(endpoint);
  try {
    const sandboxes = (await rt.listPodSandbox()).map((s) => `${s.id} ${s.state} ${s.metadata?.name}`);
    const containers = (await rt.listContainers()).map(
      (c) => `${c.id} ${c.pod_sandbox_id} ${c.metadata?.name}:${c.metadata?.attempt} ${c.state}`,
    );
    return { sandboxes: sandboxes.sort(), containers: containers.sort() };
  } finally {
    rt.close();
  }
}
