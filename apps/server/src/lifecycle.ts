/**
 * What survives the server process, and how it ends.
 *
 * Pods: the PodStore plays the API server's part. Every change the engine's pod config makes is written
 * through — ADD (a POST, or a startup example) and UPDATE/DELETE (deletionTimestamp set) store the pod as
 * the config now holds it; REMOVE (the engine's final delete of a deleted pod whose worker finished)
 * forgets it. We follow the `config.update` trace events rather than wrap the engine: they are recorded
 * synchronously inside PodConfig, after its map has changed, so `podConfig.get(uid)` is the new object.
 * At boot, before the sync loop starts, every stored pod is added back with its UID, creationTimestamp and
 * deletion fields, and the kubelet adopts what the runtime still runs (containers keep their restart
 * counts, from the restartCount annotation).
 *
 * Shutdown: on SIGTERM or SIGINT, main calls close() (HTTP stops accepting, the engine stops — containers
 * keep running, as when a kubelet stops — then the journal is flushed) and exits; a timer forces the exit
 * if that takes longer than SHUTDOWN_TIMEOUT_MS. A second signal exits at once.
 */
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import { PodStore } from './store/pod-store.ts';

/** Where, under the data directory, the pods are stored (`<dataDir>/pods` already holds the pod logs). */
export const POD_STORE_DIR = join('store', 'pods');
/** Where, under the data directory, the trace journal is. */
export const TRACE_DIR = 'trace';
export const SHUTDOWN_TIMEOUT_MS = 2_000;

/** What persistence needs from the engine: its API-facing pod config. The Kubelet has it. */
export interface PersistedEngine {
  addPod(pod: Pod): void;
  readonly podConfig: { get(uid: string): Pod | undefined };
}

export function openPodStore(dataDir: string, warn: (msg: string) => void): PodStore {
  return new PodStore(join(dataDir, POD_STORE_DIR), { warn });
}

/** Adds every stored pod to the engine, oldest first; returns how many. Call before engine.start(). */
export function restorePods(engine: PersistedEngine, store: PodStore, warn: (msg: string) => void): number {
  let n = 0;
  for (const pod of store.load()) {
    try {
      engine.addPod(pod);
      n++;
    } catch (err) {
      warn(
        `pod store: cannot restore ${pod.metadata.namespace}/${pod.metadata.name}: ${(err as Error).message}`,
      );
    }
  }
  return n;
}

/**
 * Writes every pod config change through to the store, from the trace (see the file comment). Returns
 * the unsubscribe. A failed write is reported and does not stop later ones (a throwing trace listener
 * would be dropped by the recorder).
 */
export function persistPods(
  trace: { subscribe(l: (ev: TraceEvent) => void): () => void },
  engine: PersistedEngine,
  store: PodStore,
  warn: (msg: string) => void,
): () => void {
  return trace.subscribe((ev) => {
    if (ev.type !== 'config.update') return;
    try {
      if (ev.op === 'REMOVE') {
        store.remove(ev.podUID);
        return;
      }
      const pod = engine.podConfig.get(ev.podUID);
      if (pod) store.put(pod);
    } catch (err) {
      warn(`pod store: ${ev.op} of ${ev.pod} not saved: ${(err as Error).message}`);
    }
  });
}

export interface ShutdownOptions {
  close(): Promise<void>;
  timeoutMs?: number;
  log?: (line: string) => void;
  exit?: (code: number) => void;
}

/**
 * SIGTERM / SIGINT → close() → exit 0 (1 if close failed). Exits 1 after timeoutMs if close hangs, and at
 * once on a second signal. Returns a function that removes the handlers.
 */
export function handleShutdownSignals(opts: ShutdownOptions): () => void {
  const log = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
  const exit = opts.exit ?? ((code) => process.exit(code));
  const timeoutMs = opts.timeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`syncscope: ${signal} again, exiting now`);
      exit(1);
      return;
    }
    stopping = true;
    log(`syncscope: ${signal}, shutting down`);
    const force = setTimeout(() => {
      log(`syncscope: shutdown took longer than ${timeoutMs} ms, exiting`);
      exit(1);
    }, timeoutMs);
    force.unref();
    opts.close().then(
      () => exit(0),
      (err: Error) => {
        log(`syncscope: shutdown failed: ${err.message}`);
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}

/** Resolves when p settles or after ms, whichever is first (for the shutdown's per-step budget). */
export function within(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    t.unref();
    p.then(
      () => {
        clearTimeout(t);
        resolve();
      },
      () => {
        clearTimeout(t);
        resolve();
      },
    );
  });
}
