/**
 * buildApp: the whole server apart from listen. It starts, in order:
 *
 *   the data dir lock (<dataDir>/lock: a second server on the directory fails here with DataDirInUseError,
 *   before anything else is touched) → clock (RealClock unless given) → trace journal (<dataDir>/trace) and a
 *   TraceRecorder continuing it (and writing <dataDir>/kubelet.log, kubelet-log-file.ts) →
 *   simulated node (only without runtimeEndpoint: the node process serving the data directory, adopted if
 *   one runs, else spawned — sim-node/link.ts — with CRI on <dataDir>/sim.sock; the clock takes the node's
 *   time and speed; or an in-process node handed in as `sim`) → RemoteRuntime (real gRPC, to the
 *   simulator as to containerd) → Kubelet →
 *   `server.start` trace event → the stored pods (<dataDir>/store/pods) added back → the startup examples
 *   (when asked, on the data directory's first boot only; stored before the engine gets them, as a POST)
 *   → the engine's loop → the HTTP app. The routes see the engine through durableEngine (lifecycle.ts):
 *   a create or delete is on disk before it is acknowledged.
 *
 * close() stops them in reverse within SHUTDOWN_TIMEOUT_MS: HTTP (and every WebSocket), the engine (its
 * containers keep running), the gRPC channel, the node process (its containers end; a `sim` handed in is
 * left running), then the journal is flushed and the lock released. main.ts calls listen; tests call
 * app.listen({port: 0}) or app.inject().
 *
 * A restart on the same data directory brings back every pod and the trace history. The containers outlive
 * a server that dies without close() — on a real runtime, and on the simulated node, whose process keeps
 * running (it stops by itself after SIM_NODE_IDLE_MS without a server) — and the next start adopts them,
 * restart counts included, as a kubelet does after its own restart.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  defaultKubeletConfiguration,
  Kubelet,
  RemoteRuntime,
  SimNetProber,
  type SimNode,
} from '@syncscope/core';
import { type Clock, RealClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { ContainerLogManager } from '@syncscope/core/kubelet/logs';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { admitPod, parseManifest } from './admission.ts';
import { type Example, loadExamples } from './examples.ts';
import { createHttpApp, type HttpOptions } from './http.ts';
import { lastStatuses } from './kube-api/watch.ts';
import { KubeletLogFile } from './kubelet-log-file.ts';
import {
  durableEngine,
  handleShutdownSignals,
  openPodStore,
  POD_STORE_DIR,
  persistPods,
  restorePods,
  SHUTDOWN_TIMEOUT_MS,
  storeHealth,
  TRACE_DIR,
  traceHealth,
  within,
} from './lifecycle.ts';
import { type JournaledTrace, openTrace } from './lifecycle-trace.ts';
import { KubeletMetrics } from './metrics.ts';
import type { OtlpConfig } from './otel/config.ts';
import { attachOtlp } from './otel/exporter.ts';
import type { SimControl } from './sim-control.ts';
import { describeDown, linkSimNode, type SimNodeLink, simNodeControl } from './sim-node/link.ts';
import { type DataDirLock, recordListening, withDataDirLock } from './store/lock.ts';
import type { PodStore } from './store/pod-store.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_WEB_ROOT = join(here, '..', '..', 'web', 'dist');
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(join(here, '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** What every server (managed, observe) is built with. */
export interface ServerOptions {
  /** Holds the trace journal and the lock (and, managed, the pods and the simulator). Created if missing. */
  dataDir: string;
  clock?: Clock;
  config?: Partial<KubeletConfiguration>;
  /** The built web app; default apps/web/dist. */
  webRoot?: string;
  traceCapacity?: number;
  /** The address the server will listen on: the Host check allows it (hosts.ts). */
  host?: string;
  /** Further names the Host check allows (--allowed-host). */
  allowedHosts?: string[];
  /** When set, every route but /healthz and the web app's files needs it (access.ts). */
  token?: string;
  logger?: FastifyServerOptions['logger'];
  /** Size at which the trace journal starts a new segment (default 8 MiB). */
  journalSegmentBytes?: number;
  /** Total size of the trace journal on disk; oldest segments are deleted past it (default 256 MiB). */
  journalMaxBytes?: number;
  /** Longest time an event waits in memory before the journal writes it (default 100 ms). */
  journalFlushMs?: number;
  /** Where persistence warnings go (default console.warn). */
  warn?: (msg: string) => void;
  /** Caps on trace streams (total, per address) and connections; see SECURITY.md. */
  limits?: HttpOptions['limits'];
  /** Export the trace as OpenTelemetry spans (--otlp-endpoint; otel/). */
  otlp?: OtlpConfig;
  /** Imported logs kept at most (--imports-max-count, --imports-max-bytes). */
  importsQuota?: HttpOptions['importsQuota'];
}

export interface AppOptions extends ServerOptions {
  /** CRI endpoint of a real runtime (unix:///run/containerd/containerd.sock); absent → the simulated node. */
  runtimeEndpoint?: string;
  /** Apply the examples marked for startup. */
  examples: boolean;
  /** A simulated node already running in this process (its clock should be `clock`): used instead of the
   *  node process, left running by close(). Ignored with runtimeEndpoint. */
  sim?: SimNode;
  /** How long a node process this server spawns waits without a heartbeat before it stops by itself
   *  (default: SIM_NODE_IDLE_MS from the environment, else 10 min). */
  simIdleStopMs?: number;
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
  /** The data dir lock, held until close(). */
  lock: DataDirLock;
  clock: Clock;
  simulated: boolean;
  /** The simulated node process (absent with a real runtime or an in-process `sim`). */
  simNode?: SimNodeLink;
  runtimeEndpoint: string;
  close(): Promise<void>;
}

export { handleShutdownSignals, SHUTDOWN_TIMEOUT_MS };

export async function buildApp(opts: AppOptions): Promise<BuiltApp> {
  return withDataDirLock(opts.dataDir, (lock) => buildLocked(opts, lock));
}

async function buildLocked(opts: AppOptions, lock: DataDirLock): Promise<BuiltApp> {
  const clock = opts.clock ?? new RealClock();
  const warn = opts.warn ?? ((msg: string) => console.warn(msg));
  const { trace: history, firstBoot } = openTrace({
    dir: join(opts.dataDir, TRACE_DIR),
    clock,
    capacity: opts.traceCapacity,
    segmentBytes: opts.journalSegmentBytes,
    maxBytes: opts.journalMaxBytes,
    flushIntervalMs: opts.journalFlushMs,
    podStoreDir: join(opts.dataDir, POD_STORE_DIR),
    warn,
  });
  const trace = history.recorder;
  const store = openPodStore(opts.dataDir, warn);
  const kubeletLog = new KubeletLogFile({ dir: opts.dataDir, v: opts.kubeletLogV, warn });
  const unlog = trace.subscribe(kubeletLog.listener, 'the kubelet log writer');

  const simulated = opts.runtimeEndpoint === undefined;
  const sim = simulated ? opts.sim : undefined;
  let node: SimNodeLink | undefined;
  let endpoint = opts.runtimeEndpoint ?? '';
  const config: Partial<KubeletConfiguration> = { ...opts.config };
  if (simulated) {
    if (sim) endpoint = sim.endpoint;
    else {
      if (!(clock instanceof RealClock))
        throw new Error(
          'the simulated node process runs on real time: pass a RealClock, or an in-process `sim`',
        );
      node = await linkSimNode({
        dataDir: opts.dataDir,
        idleStopMs: opts.simIdleStopMs,
        clockState: () => clock.state,
        warn,
      });
      // one time for both processes: an adopted node may run sped up, and ahead of the wall clock
      clock.setState(node.info.clock);
      endpoint = node.info.endpoint;
    }
    config.podLogsDirectory ??= join(opts.dataDir, 'pods');
  }

  const cri = new RemoteRuntime(endpoint);
  // A simulated pod IP exists only inside the simulator: HTTP/TCP probes go through it.
  const netProber = sim ? new SimNetProber(sim.runtime.net) : node?.client.prober;
  // the speed is ours to change only on the clock this server made
  const ownClock = opts.clock === undefined && clock instanceof RealClock ? clock : undefined;
  const record: SimControl['record'] = (ev) => trace.record(ev);
  const simControl: SimControl | undefined = sim
    ? { runtime: sim.runtime, clock: ownClock, record }
    : node && simNodeControl(node, cri, ownClock, record);
  const engine = new Kubelet({
    cri,
    clock,
    trace,
    config,
    runtimeEndpoint: endpoint,
    simulated,
    ...(netProber ? { netProber } : {}),
  });
  // A node process that dies is respawned by the link; the kubelet sees it go and come back at its next
  // runtime check: ask at once rather than within runtimeUpPeriodMs (the Node NotReady, /readyz 503).
  const unwatchNode = node?.onChange(() => void engine.updateRuntimeUp());
  const logManager = containerLogManager(engine.config, cri, clock, warn);
  const metrics = new KubeletMetrics(trace, engine, history.journal);
  const otlp = attachOtlp(trace, opts.otlp, {
    nodeName: { ...defaultKubeletConfiguration, ...config }.nodeName,
    version: SERVER_VERSION,
    registry: metrics.registry,
    now: () => clock.now(),
  });
  trace.record({
    type: 'server.start',
    version: SERVER_VERSION,
    runtime: simulated ? 'simulated' : 'remote',
    endpoint,
  });
  const restored = restorePods(engine, store, warn, lastStatuses(history));
  const persistence = persistPods(trace, engine, store, warn);
  const api = durableEngine(engine, store, clock);

  let examples: Example[] = [];
  try {
    examples = await loadExamples();
  } catch {
    // a checkout without examples/ still serves; the UI just offers none
  }

  const app = await createHttpApp({
    engine: api,
    health: () =>
      storeHealth(store, persistence) ??
      traceHealth(history.failures) ??
      (node && !node.state.up ? `degraded: ${describeDown(node.state)}` : undefined),
    trace: history,
    clock,
    token: opts.token,
    bind: opts.host,
    allowedHosts: opts.allowedHosts,
    webRoot: opts.webRoot ?? DEFAULT_WEB_ROOT,
    examples,
    logger: opts.logger,
    podLogsDirectory: config.podLogsDirectory,
    importsDir: join(opts.dataDir, 'imports'),
    importsQuota: opts.importsQuota,
    metrics,
    limits: opts.limits,
    sim: simControl,
  });

  // Examples are a first-run courtesy: on a restart the stored pods are what the user left.
  if (opts.examples && firstBoot && restored === 0) {
    for (const ex of examples.filter((e) => e.startup)) {
      const parsed = parseManifest(ex.yaml, 'application/yaml');
      const admitted = parsed.ok
        ? admitPod(parsed.value, manifestNamespace(parsed.value), engine, clock)
        : parsed;
      try {
        if (!admitted.ok) throw new Error(admitted.status.message);
        api.addPod(admitted.pod);
      } catch (err) {
        app.log.warn(`example ${ex.file} not applied: ${(err as Error).message}`);
      }
    }
  }
  recordListening(app.server, lock, warn);
  engine.start();
  logManager.start();

  let closed: Promise<void> | undefined;
  const close = () => {
    // Each step has its share of the shutdown budget, so the journal is flushed even if one hangs.
    const step = SHUTDOWN_TIMEOUT_MS / 5;
    closed ??= (async () => {
      await within(app.close(), step);
      unwatchNode?.();
      await within(Promise.all([engine.stop(), logManager.stop()]), step);
      const exported = within(otlp.close(), step);
      cri.close();
      await node?.close(step);
      await exported;
      persistence.stop();
      await within(history.journal.close(), step);
      // last, so the journal closes when it always has; what the log still has queued is written now
      unlog();
      await within(kubeletLog.close(), step);
      lock.release();
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
    lock,
    clock,
    simulated,
    ...(node ? { simNode: node } : {}),
    runtimeEndpoint: endpoint,
    close,
  };
}

/**
 * The kubelet's container log manager on this server's runtime (kubelet.go starts it in Run): the logs of
 * the running containers it created are rotated at containerLogMaxSizeBytes. A failure is warned once until
 * the next round without it (a runtime that is down would say the same every 10 s).
 */
function containerLogManager(
  config: KubeletConfiguration,
  cri: RemoteRuntime,
  clock: Clock,
  warn: (msg: string) => void,
): ContainerLogManager {
  let said = new Set<string>();
  let saying = new Set<string>();
  const manager = new ContainerLogManager({
    runtime: {
      listContainers: async (f) => {
        // a round begins: what the last one said and this one does not is over
        said = saying;
        saying = new Set();
        return cri.listContainers(f);
      },
      containerStatus: (id) => cri.containerStatus(id),
      reopenContainerLog: (id) => cri.reopenContainerLog(id),
    },
    clock,
    policy: { maxSize: config.containerLogMaxSizeBytes, maxFiles: config.containerLogMaxFiles },
    monitorIntervalMs: config.containerLogMonitorIntervalMs,
    ownershipLabel: config.ownershipLabel,
    onError: (message, err) => {
      const line = `container log manager: ${message}: ${err instanceof Error ? err.message : String(err)}`;
      saying.add(line);
      if (!said.has(line)) warn(line);
    },
  });
  return manager;
}

function manifestNamespace(v: unknown): string {
  const ns = (v as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}

export { JournaledTrace } from './lifecycle-trace.ts';
export { TraceJournal } from './store/journal.ts';
export { PodStore } from './store/pod-store.ts';
