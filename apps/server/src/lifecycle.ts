/**
 * What survives the server process, and how it ends.
 *
 * Pods: the PodStore plays the API server's part, and a change is acknowledged only once it is on disk.
 * The API's writes (a POST, a PUT or PATCH, a DELETE, a startup example) go through durableEngine: the pod as it will be
 * is stored first and handed to the engine only after the write returned; when the disk refuses, the
 * request fails with a 507/503 Status and the engine never sees the change; but a DELETE on a full disk
 * goes on (deleting frees space), its record removed rather than rewritten. The engine's own changes (the
 * final REMOVE of a deleted pod whose worker finished, any UPDATE) are written after the fact by
 * persistPods, which follows the `config.update` trace events: they are recorded synchronously inside
 * PodConfig, after its map has changed, so `podConfig.get(uid)` is the new object. The API's changes come
 * by there too and cost nothing (the store skips a put of what it already holds). A refused engine write
 * is logged, kept as pending and retried on the next change; /healthz reports it (storeHealth).
 * At boot, before the sync loop starts, every stored pod is added back with its UID, creationTimestamp and
 * deletion fields, and the kubelet adopts what the runtime still runs (containers keep their restart
 * counts, from the restartCount annotation).
 *
 * Shutdown: on SIGTERM or SIGINT, main calls close() (HTTP stops accepting, the engine stops — containers
 * keep running, as when a kubelet stops — then the journal is flushed) and exits; a timer forces the exit
 * if that takes longer than SHUTDOWN_TIMEOUT_MS. A second signal exits at once.
 */
import { join } from 'node:path';
import { gracefulDeletion } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api';
import type { PassiveClock } from '@syncscope/core/clock';
import type { ListenerFailure } from '@syncscope/core/events/recorder';
import type { TraceEvent } from '@syncscope/core/trace';
import type { Engine } from './engine.ts';
import { StatusError } from './status.ts';
import { PodStore } from './store/pod-store.ts';
import { StoreWriteError, storeFailureStatus } from './store/write-error.ts';

/** Where, under the data directory, the pods are stored (`<dataDir>/pods` already holds the pod logs). */
export const POD_STORE_DIR = join('store', 'pods');
/** Where, under the data directory, the trace journal is. */
export const TRACE_DIR = 'trace';
export const SHUTDOWN_TIMEOUT_MS = 2_000;

/** What persistence needs from the engine: its API-facing pod config. The Kubelet has it. */
export interface PersistedEngine {
  addPod(pod: Pod): void;
  updatePod(pod: Pod): void;
  readonly podConfig: { get(uid: string): Pod | undefined };
}

export function openPodStore(dataDir: string, warn: (msg: string) => void): PodStore {
  return new PodStore(join(dataDir, POD_STORE_DIR), { warn });
}

/**
 * Adds every stored pod to the engine, oldest first; returns how many. Call before engine.start().
 * `lastStatus` gives a pod's status as last reported (the trace history): a pod comes back with it, as a
 * restarted kubelet finds the apiserver's copy, so its status keeps its times and an unchanged pod is
 * unchanged for watchers.
 */
export function restorePods(
  engine: PersistedEngine,
  store: PodStore,
  warn: (msg: string) => void,
  lastStatus: (uid: string) => Pod['status'] | undefined = () => undefined,
): number {
  let n = 0;
  for (const stored of store.load()) {
    const status = lastStatus(stored.metadata.uid ?? '') ?? stored.status;
    const pod = status ? { ...stored, status } : stored;
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

/** What durableEngine needs beyond the Engine: a delete at a given time, and the pods as the API holds them. */
export interface DurableTarget extends Engine, PersistedEngine {
  deletePod(uid: string, gracePeriodSeconds?: number, now?: number): void;
}

/**
 * The engine as the API must see it: addPod and deletePod store the pod as it will be, then hand the change
 * to the engine. A refused write throws a StatusError (507/503, see storeFailureStatus) before the engine is
 * touched. The delete is computed once (gracefulDeletion at one `now`) for the store and the engine, so the
 * stored deletionTimestamp is the one the engine acts on. Called on the event loop; each write fsyncs.
 * `journal` says why the trace cannot be kept on disk now (JournaledTrace.storageFailure): while it does,
 * every write is refused the same way (a change whose events could not be kept is not acknowledged), a
 * delete on a full disk excepted, and storageFailure() names it for /readyz.
 */
export function durableEngine(
  engine: DurableTarget,
  store: PodStore,
  clock: PassiveClock,
  journal: () => StoreWriteError | undefined = () => undefined,
): Engine {
  const stored = (write: () => void) => {
    try {
      const refused = journal();
      if (refused) throw refused;
      write();
    } catch (err) {
      if (err instanceof StoreWriteError) throw new StatusError(storeFailureStatus(err));
      throw err;
    }
  };
  return {
    addPod(pod) {
      stored(() => store.put(pod));
      engine.addPod(pod);
    },
    updatePod(pod) {
      stored(() => store.put(pod));
      engine.updatePod(pod);
    },
    deletePod(uid, gracePeriodSeconds) {
      const refused = journal();
      if (refused && storeFailureStatus(refused).code !== 507)
        throw new StatusError(storeFailureStatus(refused));
      const now = clock.now();
      const old = engine.podConfig.get(uid);
      const phase = engine.getPodByUID(uid)?.status?.phase;
      const deleted = old && gracefulDeletion(old, gracePeriodSeconds, now, phase);
      // grace 0 ends in a REMOVE at once, which persistPods writes through; the deleted pod is stored
      // first all the same, so an acknowledged delete is never undone by a crash in between
      if (deleted) {
        try {
          store.put(deleted);
        } catch (err) {
          if (!(err instanceof StoreWriteError)) throw err;
          // A delete frees space: a full disk never refuses one. The pod's record is removed instead (an
          // unlink needs no room), so the delete holds across a crash too (the containers left are orphans
          // that housekeeping stops); any other refusal (read-only, I/O error) is the 503 as for a create.
          if (storeFailureStatus(err).code !== 507) throw new StatusError(storeFailureStatus(err));
          try {
            store.remove(uid);
          } catch {
            // still the engine's to finish: persistPods retries the record with the next change
          }
        }
      }
      engine.deletePod(uid, gracePeriodSeconds, now);
    },
    getPods: () => engine.getPods(),
    getPod: (namespace, name) => engine.getPod(namespace, name),
    getPodByUID: (uid) => engine.getPodByUID(uid),
    getEvents: () => engine.getEvents(),
    nodeInfo: () => engine.nodeInfo(),
    listRuntimePods: async () => (await engine.listRuntimePods?.()) ?? [],
    storageFailure: () => journal()?.message,
  };
}

export interface PodPersistence {
  /** Stops following the trace. */
  stop(): void;
  /** Pods whose latest change is not on disk yet (a refused write, retried on the next change). */
  readonly pending: ReadonlySet<string>;
}

/**
 * Writes every pod config change through to the store, from the trace (see the file comment): the pod as
 * the config now holds it, or its removal once the config has forgotten it. A refused write is logged, its
 * pod kept in `pending` and written again (as it is then) on the next change of any pod; it never throws
 * (a throwing trace listener is dropped by the recorder).
 */
export function persistPods(
  trace: { subscribe(l: (ev: TraceEvent) => void, name?: string): () => void },
  engine: PersistedEngine,
  store: PodStore,
  warn: (msg: string) => void,
): PodPersistence {
  const pending = new Set<string>();
  const save = (uid: string) => {
    try {
      const pod = engine.podConfig.get(uid);
      if (pod) store.put(pod);
      else store.remove(uid);
      pending.delete(uid);
      return true;
    } catch (err) {
      if (!pending.has(uid)) warn(`${(err as Error).message} (the change is kept and retried)`);
      pending.add(uid);
      return false;
    }
  };
  const stop = trace.subscribe((ev) => {
    if (ev.type !== 'config.update') return;
    if (!save(ev.podUID)) return;
    for (const uid of [...pending]) if (!save(uid)) return;
  }, 'the pod store writer');
  return { stop, pending };
}

/**
 * What /healthz reports beyond `ok` for the trace: the journal's disk refusing its writes, and every listener
 * that threw and was removed (the journal, the pod store writer, the metrics, …), since what it did has
 * stopped; undefined while neither.
 */
export function traceHealth(
  failures: readonly ListenerFailure[],
  journal?: StoreWriteError,
): string | undefined {
  const said = failures.map((f) => `${f.name} stopped at event seq ${f.seq} (${f.type}): ${f.error}`);
  if (journal) said.unshift(`${journal.message} (events are kept in memory and written once it can)`);
  return said.length === 0 ? undefined : `degraded: ${said.join('; ')}`;
}

/** What /healthz reports beyond `ok`: undefined while the store takes every write. */
export function storeHealth(store: PodStore, persistence: PodPersistence): string | undefined {
  if (persistence.pending.size > 0) {
    const n = persistence.pending.size;
    return `degraded: ${n} pod change${n === 1 ? '' : 's'} not saved: ${store.failure?.message ?? 'pod store: write failed'}`;
  }
  if (store.failure) return `degraded: ${store.failure.message}`;
  return undefined;
}

export interface ShutdownOptions {
  close(): Promise<void>;
  timeoutMs?: number;
  log?: (line: string) => void;
  exit?: (code: number) => void;
  /** Wall time in ms (default Date.now), to tell a repeated signal from a second request. */
  now?: () => number;
}

/**
 * One Ctrl-C can arrive twice: from the terminal to the whole process group and again relayed by a wrapper
 * (`tsx`, `pnpm start`). The same signal again within this long is taken as the same request.
 */
export const SIGNAL_REPEAT_MS = 500;

/**
 * SIGTERM / SIGINT → close() → exit 0 (1 if close failed). Exits 1 after timeoutMs if close hangs, and at
 * once on a second signal (not the same one repeated within SIGNAL_REPEAT_MS). Returns a function that
 * removes the handlers.
 */
export function handleShutdownSignals(opts: ShutdownOptions): () => void {
  const log = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
  const exit = opts.exit ?? ((code) => process.exit(code));
  const timeoutMs = opts.timeoutMs ?? SHUTDOWN_TIMEOUT_MS;
  const now = opts.now ?? Date.now;
  let stopping: { signal: NodeJS.Signals; at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping?.signal === signal && now() - stopping.at < SIGNAL_REPEAT_MS) return;
    if (stopping) {
      log(`syncscope: ${signal} again, exiting now`);
      exit(1);
      return;
    }
    stopping = { signal, at: now() };
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
