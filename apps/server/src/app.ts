/**
 * buildApp: the whole server apart from listen. It starts, in order:
 *
 *   clock (RealClock unless given) → trace journal (<dataDir>/trace) and a TraceRecorder continuing it (and
 *   writing <dataDir>/kubelet.log, kubelet-log-file.ts) →
 *   simulated node (only without runtimeEndpoint: a CRI gRPC server on <dataDir>/sim.sock, unless a running
 *   one is handed in as `sim`) → RemoteRuntime (real gRPC, to the simulator as to containerd) → Kubelet →
 *   `server.start` trace event → the stored pods (<dataDir>/store/pods) added back → the startup examples
 *   (when asked, on the data directory's first boot only) → the engine's loop → the HTTP app.
 *
 * close() stops them in reverse within SHUTDOWN_TIMEOUT_MS: HTTP (and every WebSocket), the engine (its
 * containers keep running), the gRPC channel, the simulator we started, then the journal is flushed.
 * main.ts calls listen; tests call app.listen({port: 0}) or app.inject().
 *
 * A restart on the same data directory brings back every pod and the trace history; on a real runtime
 * the containers outlive the server and are adopted. The simulated node lives in the server's process, so
 * after a process restart its containers are gone and the pods start again; to see adoption on the
 * simulator, keep its node alive across buildApp/close in one process (the `sim` option).
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kubelet, RemoteRuntime, SimNetProber, type SimNode, startSimNode } from '@syncscope/core';
import { type Clock, RealClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { admitPod, parseManifest } from './admission.ts';
import { type Example, loadExamples } from './examples.ts';
import { createHttpApp } from './http.ts';
import { KubeletLogFile } from './kubelet-log-file.ts';
import {
  handleShutdownSignals,
  openPodStore,
  persistPods,
  restorePods,
  SHUTDOWN_TIMEOUT_MS,
  TRACE_DIR,
  within,
} from './lifecycle.ts';
import { type JournaledTrace, openTrace } from './lifecycle-trace.ts';
import { KubeletMetrics } from './metrics.ts';
import type { PodStore } from './store/pod-store.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_WEB_ROOT = join(here, '..', '..', 'web', 'dist');
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { version: string }
).version;

export interface AppOptions {
  /** CRI endpoint of a real runtime (unix:///run/containerd/containerd.sock); absent → the simulated node. */
  runtimeEndpoint?: string;
  /** Holds the simulator's socket and, on the simulator, the pod logs (<dataDir>/pods). Created if missing. */
  dataDir: string;
  /** Apply the examples marked for startup. */
  examples: boolean;
  clock?: Clock;
  config?: Partial<KubeletConfiguration>;
  /** The built web app; default apps/web/dist. */
  webRoot?: string;
  traceCapacity?: number;
  /** The address the server will listen on (for the log line and the Origin check's benefit). */
  host?: string;
  /** When set, every change, the trace (REST, export, stream) and logs need it (context.ts guardRequest). */
  token?: string;
  logger?: FastifyServerOptions['logger'];
  /** A simulated node already running (its clock should be `clock`): used instead of starting one, left
   *  running by close(). Ignored with runtimeEndpoint. */
  sim?: SimNode;
  /** Size at which the trace journal starts a new segment (default 8 MiB). */
  journalSegmentBytes?: number;
  /** Total size of the trace journal on disk; oldest segments are deleted past it (default 256 MiB). */
  journalMaxBytes?: number;
  /** Where persistence warnings go (default console.warn). */
  warn?: (msg: string) => void;
  /** The verbosity of <dataDir>/kubelet.log, the trace written as a kubelet's log (the kubelet's -v; default 2). */
  kubeletLogV?: number;
}

export interface BuiltApp {
  app: FastifyInstance;
  engine: Kubelet;
  trace: TraceRecorder;
  /** The trace with its on-disk history (what the routes read). */
  history: JournaledTrace;
  /** The desired pods on disk. */
  store: PodStore;
  /** <dataDir>/kubelet.log, written from the trace. */
  kubeletLog: KubeletLogFile;
  /** Pods added back from the store at boot. */
  restored: number;
  clock: Clock;
  simulated: boolean;
  runtimeEndpoint: string;
  close(): Promise<void>;
}

export { handleShutdownSignals, SHUTDOWN_TIMEOUT_MS };

export async function buildApp(opts: AppOptions): Promise<BuiltApp> {
  const clock = opts.clock ?? new RealClock();
  const warn = opts.warn ?? ((msg: string) => console.warn(msg));
  await mkdir(opts.dataDir, { recursive: true });
  const { trace: history, firstBoot } = openTrace({
    dir: join(opts.dataDir, TRACE_DIR),
    clock,
    capacity: opts.traceCapacity,
    segmentBytes: opts.journalSegmentBytes,
    maxBytes: opts.journalMaxBytes,
    warn,
  });
  const trace = history.recorder;
  const store = openPodStore(opts.dataDir, warn);
  const kubeletLog = new KubeletLogFile({ dir: opts.dataDir, v: opts.kubeletLogV, warn });
  const unlog = trace.subscribe(kubeletLog.listener);

  const simulated = opts.runtimeEndpoint === undefined;
  let sim: SimNode | undefined;
  let ownSim = false;
  let endpoint = opts.runtimeEndpoint ?? '';
  const config: Partial<KubeletConfiguration> = { ...opts.config };
  if (simulated) {
    if (opts.sim) sim = opts.sim;
    else {
      const socketPath = join(opts.dataDir, 'sim.sock');
      await rm(socketPath, { force: true });
      sim = await startSimNode({ socketPath, clock });
      ownSim = true;
    }
    endpoint = sim.endpoint;
    config.podLogsDirectory ??= join(opts.dataDir, 'pods');
  }

  const cri = new RemoteRuntime(endpoint);
  // A simulated pod IP exists only inside the simulator: HTTP/TCP probes go through it.
  const netProber = sim ? new SimNetProber(sim.runtime.net) : undefined;
  const engine = new Kubelet({
    cri,
    clock,
    trace,
    config,
    runtimeEndpoint: endpoint,
    simulated,
    ...(netProber ? { netProber } : {}),
  });
  const metrics = new KubeletMetrics(trace, engine);
  trace.record({
    type: 'server.start',
    version: SERVER_VERSION,
    runtime: simulated ? 'simulated' : 'remote',
    endpoint,
  });
  const restored = restorePods(engine, store, warn);
  const unpersist = persistPods(trace, engine, store, warn);

  let examples: Example[] = [];
  try {
    examples = await loadExamples();
  } catch {
    // a checkout without examples/ still serves; the UI just offers none
  }

  const app = await createHttpApp({
    engine,
    trace: history,
    clock,
    token: opts.token,
    webRoot: opts.webRoot ?? DEFAULT_WEB_ROOT,
    examples,
    logger: opts.logger,
    podLogsDirectory: config.podLogsDirectory,
    metrics,
    sim: sim && {
      runtime: sim.runtime,
      // the speed is ours to change only on the clock this server made
      clock: opts.clock === undefined && clock instanceof RealClock ? clock : undefined,
      record: (ev) => trace.record(ev),
    },
  });

  // Examples are a first-run courtesy: on a restart the stored pods are what the user left.
  if (opts.examples && firstBoot && restored === 0) {
    for (const ex of examples.filter((e) => e.startup)) {
      const parsed = parseManifest(ex.yaml, 'application/yaml');
      const admitted = parsed.ok
        ? admitPod(parsed.value, manifestNamespace(parsed.value), engine, clock)
        : parsed;
      if (admitted.ok) engine.addPod(admitted.pod);
      else app.log.warn(`example ${ex.file} not applied: ${admitted.status.message}`);
    }
  }
  engine.start();

  let closed: Promise<void> | undefined;
  const close = () => {
    // Each step has its share of the shutdown budget, so the journal is flushed even if one hangs.
    const step = SHUTDOWN_TIMEOUT_MS / 5;
    closed ??= (async () => {
      await within(app.close(), step);
      await within(engine.stop(), step);
      cri.close();
      if (ownSim) await within(sim?.close() ?? Promise.resolve(), step);
      unpersist();
      await within(history.journal.close(), step);
      // last, so the journal closes when it always has; what the log still has queued is written now
      unlog();
      await within(kubeletLog.close(), step);
    })();
    return closed;
  };

  return {
    app,
    engine,
    trace,
    history,
    store,
    kubeletLog,
    restored,
    clock,
    simulated,
    runtimeEndpoint: endpoint,
    close,
  };
}

function manifestNamespace(v: unknown): string {
  const ns = (v as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

export { JournaledTrace } from './lifecycle-trace.ts';
export { TraceJournal } from './store/journal.ts';
export { PodStore } from './store/pod-store.ts';
