/**
 * buildApp: the whole server apart from listen. It starts, in order:
 *
 *   clock (RealClock unless given) → TraceRecorder → simulated node (only without runtimeEndpoint: a CRI
 *   gRPC server on <dataDir>/sim.sock) → RemoteRuntime (real gRPC, to the simulator as to containerd)
 *   → Kubelet → `server.start` trace event → the startup examples (when asked) → the HTTP app.
 *
 * close() stops them in reverse: HTTP (and every WebSocket), the engine, the gRPC channel, the simulator.
 * main.ts calls listen; tests call app.listen({port: 0}) or app.inject().
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kubelet, RemoteRuntime, startSimNode } from '@syncscope/core';
import { type Clock, RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { admitPod, parseManifest } from './admission.ts';
import { type Example, loadExamples } from './examples.ts';
import { createHttpApp } from './http.ts';
import { KubeletMetrics } from './metrics.ts';

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
  /** When set, POST and DELETE need `Authorization: Bearer <token>`. */
  token?: string;
  logger?: FastifyServerOptions['logger'];
}

export interface BuiltApp {
  app: FastifyInstance;
  engine: Kubelet;
  trace: TraceRecorder;
  clock: Clock;
  simulated: boolean;
  runtimeEndpoint: string;
  close(): Promise<void>;
}

export async function buildApp(opts: AppOptions): Promise<BuiltApp> {
  const clock = opts.clock ?? new RealClock();
  const trace = new TraceRecorder(clock, opts.traceCapacity);
  await mkdir(opts.dataDir, { recursive: true });

  const simulated = opts.runtimeEndpoint === undefined;
  let sim: Awaited<ReturnType<typeof startSimNode>> | undefined;
  let endpoint = opts.runtimeEndpoint ?? '';
  const config: Partial<KubeletConfiguration> = { ...opts.config };
  if (simulated) {
    const socketPath = join(opts.dataDir, 'sim.sock');
    await rm(socketPath, { force: true });
    sim = await startSimNode({ socketPath, clock });
    endpoint = sim.endpoint;
    config.podLogsDirectory ??= join(opts.dataDir, 'pods');
  }

  const cri = new RemoteRuntime(endpoint);
  const engine = new Kubelet({ cri, clock, trace, config, runtimeEndpoint: endpoint, simulated });
  const metrics = new KubeletMetrics(trace, engine);
  trace.record({
    type: 'server.start',
    version: SERVER_VERSION,
    runtime: simulated ? 'simulated' : 'remote',
    endpoint,
  });
  engine.start();

  let examples: Example[] = [];
  try {
    examples = await loadExamples();
  } catch {
    // a checkout without examples/ still serves; the UI just offers none
  }

  const app = await createHttpApp({
    engine,
    trace,
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

  if (opts.examples) {
    for (const ex of examples.filter((e) => e.startup)) {
      const parsed = parseManifest(ex.yaml, 'application/yaml');
      const admitted = parsed.ok
        ? admitPod(parsed.value, manifestNamespace(parsed.value), engine, clock)
        : parsed;
      if (admitted.ok) engine.addPod(admitted.pod);
      else app.log.warn(`example ${ex.file} not applied: ${admitted.status.message}`);
    }
  }

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      await app.close();
      await engine.stop();
      cri.close();
      await sim?.close();
    })();
    return closed;
  };

  return { app, engine, trace, clock, simulated, runtimeEndpoint: endpoint, close };
}

function manifestNamespace(v: unknown): string {
  const ns = (v as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}
