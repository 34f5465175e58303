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
 * app.listen({port: 0}) or app.inject(). The lock, journal, metrics, HTTP app and shutdown are the sequence
 * both servers share (boot.ts bootServer); managedEngine is what is this mode's own.
 *
 * A restart on the same data directory brings back every pod and the trace history. The containers outlive
 * a server that dies without close() — on a real runtime, and on the simulated node, whose process keeps
 * running (it stops by itself after SIM_NODE_IDLE_MS without a server) — and the next start adopts them,
 * restart counts included, as a kubelet does after its own restart.
 */
import { join } from 'node:path';
import {
  defaultKubeletConfiguration,
  Kubelet,
  RemoteRuntime,
  SimNetProber,
  type SimNode,
} from '@syncscope/core';
import { RealClock } from '@syncscope/core/clock';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { type Boot, type BootedServer, bootServer, type RoleEngine, type ServerOptions } from './boot.ts';
import { containerLogManager } from './container-log-rotation.ts';
import { type Example, loadExamples } from './examples.ts';
import { criStreaming } from './kube-api/exec-proxy.ts';
import { simExec } from './kube-api/exec-session.ts';
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
  traceHealth,
  within,
} from './lifecycle.ts';
import type { SimControl } from './sim-control.ts';
import { simNodeControl } from './sim-node/control.ts';
import { linkSimNode } from './sim-node/link.ts';
import { describeDown, type SimNodeLink } from './sim-node/link-state.ts';
import { applyStartupExamples } from './startup-examples.ts';
import { NAMESPACE_FILE, NamespaceFile } from './store/namespace-file.ts';
import type { PodStore } from './store/pod-store.ts';

export { DEFAULT_WEB_ROOT, SERVER_VERSION, type ServerOptions } from './boot.ts';

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

/** What the managed server has beyond every server's (BootedServer: app, trace, history, lock, clock, close). */
interface ManagedParts {
  engine: Kubelet;
  /** The desired pods on disk. */
  store: PodStore;
  /** <dataDir>/kubelet.log, written from the trace. */
  kubeletLog: KubeletLogFile;
  /** Pods added back from the store at boot. */
  restored: number;
  simulated: boolean;
  /** The simulated node process (absent with a real runtime or an in-process `sim`). */
  simNode?: SimNodeLink;
  runtimeEndpoint: string;
}

export type BuiltApp = BootedServer & ManagedParts;

export { handleShutdownSignals, SHUTDOWN_TIMEOUT_MS };

export async function buildApp(opts: AppOptions): Promise<BuiltApp> {
  return bootServer(opts, {
    podStoreDir: join(opts.dataDir, POD_STORE_DIR),
    shutdownSteps: 5,
    engine: (boot) => managedEngine(opts, boot),
  });
}

/** The managed server's own part of the boot (see the file comment) and of close(). */
async function managedEngine(
  opts: AppOptions,
  { clock, warn, history, firstBoot }: Boot,
): Promise<RoleEngine<ManagedParts>> {
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
    ? { runtime: sim.runtime, clock: ownClock, record, exec: simExec(sim) }
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

  // set by serve(), after `server.start` is recorded
  let restored = 0;
  let persistence: ReturnType<typeof persistPods> | undefined;
  let api: ReturnType<typeof durableEngine> | undefined;
  let examples: Example[] = [];

  return {
    runtime: simulated ? 'simulated' : 'remote',
    endpoint,
    nodeName: { ...defaultKubeletConfiguration, ...config }.nodeName,
    pods: engine,
    observed: false,
    async serve() {
      restored = restorePods(engine, store, warn, lastStatuses(history));
      const persisted = persistPods(trace, engine, store, warn);
      persistence = persisted;
      api = durableEngine(engine, store, clock, () => history.storageFailure());
      try {
        examples = await loadExamples();
      } catch {
        // a checkout without examples/ still serves; the UI just offers none
      }
      return {
        engine: api,
        health: () =>
          storeHealth(store, persisted) ??
          traceHealth(history.failures, history.journal.failure) ??
          (node && !node.state.up ? `degraded: ${describeDown(node.state)}` : undefined),
        examples,
        podLogsDirectory: config.podLogsDirectory,
        importsDir: join(opts.dataDir, 'imports'),
        namespaceFile: new NamespaceFile(join(opts.dataDir, NAMESPACE_FILE), warn),
        importsQuota: opts.importsQuota,
        sim: simControl,
        ...(simControl ? {} : { streaming: criStreaming(cri) }),
      };
    },
    onHttp(app) {
      // Examples are a first-run courtesy: on a restart the stored pods are what the user left.
      if (!(opts.examples && firstBoot && restored === 0) || !api) return;
      applyStartupExamples(examples, engine, api, clock, (msg) => app.log.warn(msg));
    },
    start() {
      engine.start();
      logManager.start();
      return {
        engine,
        store,
        kubeletLog,
        restored,
        simulated,
        ...(node ? { simNode: node } : {}),
        runtimeEndpoint: endpoint,
      };
    },
    async stop(step) {
      unwatchNode?.();
      await within(Promise.all([engine.stop(), logManager.stop()]), step);
    },
    async closeRuntime(step) {
      cri.close();
      await node?.close(step);
    },
    detach: () => persistence?.stop(),
    async closeAfterJournal(step) {
      // last, so the journal closes when it always has; what the log still has queued is written now
      unlog();
      await within(kubeletLog.close(), step);
    },
  };
}

export { JournaledTrace } from './lifecycle-trace.ts';
export { TraceJournal } from './store/journal.ts';
export { PodStore } from './store/pod-store.ts';
