/**
 * bootServer: the boot sequence both servers share (managed: app.ts buildApp; observe: observe/app.ts
 * buildObserveApp). Each root hands in a ServerRole, the part that is its own; the rest happens here, in
 * this order:
 *
 *   the data dir lock (withDataDirLock: a second server on the directory fails before anything is touched)
 *   → clock (RealClock unless given) → trace journal (<dataDir>/trace) and the recorder continuing it
 *   → role.engine (the role's runtime and engine; nothing started, nothing recorded)
 *   → metrics and OTLP export on the trace → `server.start` → role.serve (what the routes are given)
 *   → the HTTP app → role.onHttp → the listening address recorded in the lock → role.start
 *
 * close() (once; later calls get the same promise), each step within SHUTDOWN_TIMEOUT_MS / shutdownSteps:
 *
 *   HTTP (and every WebSocket) → role.stop → role.closeRuntime, the OTLP exporter flushing meanwhile
 *   → role.detach → the journal flushed → role.closeAfterJournal → the lock released
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Clock, RealClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Engine } from './engine.ts';
import { createHttpApp, type HttpOptions } from './http.ts';
import { SHUTDOWN_TIMEOUT_MS, TRACE_DIR, within } from './lifecycle.ts';
import { type JournaledTrace, openTrace } from './lifecycle-trace.ts';
import { KubeletMetrics } from './metrics.ts';
import type { OtlpConfig } from './otel/config.ts';
import { attachOtlp } from './otel/exporter.ts';
import { type DataDirLock, recordListening, withDataDirLock } from './store/lock.ts';

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

/** What a role is handed once the trace is open. */
export interface Boot {
  clock: Clock;
  warn: (msg: string) => void;
  history: JournaledTrace;
  /** The journal held no event: the data directory's first boot. */
  firstBoot: boolean;
}

/** The HTTP app's options every server sets the same way (from ServerOptions and the boot). */
type SharedHttpOption =
  | 'trace'
  | 'clock'
  | 'token'
  | 'bind'
  | 'allowedHosts'
  | 'webRoot'
  | 'logger'
  | 'metrics'
  | 'limits';

/** The HTTP app's options that are the role's own: the engine the routes drive, and what goes with it. */
type RoleHttpOptions = Omit<HttpOptions, SharedHttpOption>;

/** One server's engine, made by ServerRole.engine; `Own` is what its root returns beyond BootedServer. */
export interface RoleEngine<Own> {
  /** What the `server.start` event says. */
  runtime: 'simulated' | 'remote' | 'observe';
  endpoint: string;
  /** The node the OTLP spans are of. */
  nodeName: string;
  /** Whose pods the metrics count. */
  pods: Pick<Engine, 'getPods' | 'getPodByUID'>;
  /** Observe mode: the OTLP spans are marked observed, and the journal's bad records are not a metric. */
  observed: boolean;
  /** After `server.start` is recorded, with the metrics counting: what the routes are given. */
  serve(): Promise<RoleHttpOptions>;
  /** With the HTTP app made, before the address is recorded and anything starts. */
  onHttp(app: FastifyInstance): void;
  /** Starts the engine's loops; returns what the root hands back beyond BootedServer. */
  start(): Own;
  /** After the HTTP app closed: stops what start() started. */
  stop(step: number): Promise<void>;
  /** Closes the runtime client (and node); `exported` is the OTLP exporter's flush, under way meanwhile. */
  closeRuntime(step: number, exported: Promise<void>): Promise<void>;
  /** Before the journal closes: stops following the trace. */
  detach?(): void;
  /** After the journal closed (the lock is still held). */
  closeAfterJournal?(step: number): Promise<void>;
}

/** What makes one server its own: composed into bootServer. */
export interface ServerRole<Own> {
  /** The pod store beside the journal (managed): openTrace warns when it lost the journal's pods. */
  podStoreDir?: string;
  /** How many steps the shutdown's SHUTDOWN_TIMEOUT_MS is shared between. */
  shutdownSteps: number;
  engine(boot: Boot): Promise<RoleEngine<Own>>;
}

/** What every server hands back. */
export interface BootedServer {
  app: FastifyInstance;
  trace: TraceRecorder;
  /** The trace with its on-disk history (what the routes read). */
  history: JournaledTrace;
  /** The data dir lock, held until close(). */
  lock: DataDirLock;
  clock: Clock;
  close(): Promise<void>;
}

export async function bootServer<Own>(
  opts: ServerOptions,
  role: ServerRole<Own>,
): Promise<BootedServer & Own> {
  return withDataDirLock(opts.dataDir, (lock) => bootLocked(opts, role, lock));
}

async function bootLocked<Own>(
  opts: ServerOptions,
  role: ServerRole<Own>,
  lock: DataDirLock,
): Promise<BootedServer & Own> {
  const clock = opts.clock ?? new RealClock();
  const warn = opts.warn ?? ((msg: string) => console.warn(msg));
  const { trace: history, firstBoot } = await openTrace({
    dir: join(opts.dataDir, TRACE_DIR),
    clock,
    capacity: opts.traceCapacity,
    segmentBytes: opts.journalSegmentBytes,
    maxBytes: opts.journalMaxBytes,
    flushIntervalMs: opts.journalFlushMs,
    ...(role.podStoreDir !== undefined ? { podStoreDir: role.podStoreDir } : {}),
    warn,
  });
  const trace = history.recorder;
  const own = await role.engine({ clock, warn, history, firstBoot });
  const metrics = new KubeletMetrics(history, own.pods, own.observed ? undefined : history.journal);
  const otlp = attachOtlp(trace, opts.otlp, {
    nodeName: own.nodeName,
    version: SERVER_VERSION,
    registry: metrics.registry,
    ...(own.observed ? { observed: true } : {}),
    now: () => clock.now(),
  });
  trace.record({
    type: 'server.start',
    version: SERVER_VERSION,
    runtime: own.runtime,
    endpoint: own.endpoint,
  });
  const app = await createHttpApp({
    ...(await own.serve()),
    trace: history,
    clock,
    token: opts.token,
    bind: opts.host,
    allowedHosts: opts.allowedHosts,
    webRoot: opts.webRoot ?? DEFAULT_WEB_ROOT,
    logger: opts.logger,
    metrics,
    limits: opts.limits,
  });
  own.onHttp(app);
  recordListening(app.server, lock, warn);
  const started = own.start();

  let closed: Promise<void> | undefined;
  const close = () => {
    // Each step has its share of the shutdown budget, so the journal is flushed even if one hangs.
    const step = SHUTDOWN_TIMEOUT_MS / role.shutdownSteps;
    closed ??= (async () => {
      await within(app.close(), step);
      await own.stop(step);
      const exported = within(otlp.close(), step);
      await own.closeRuntime(step, exported);
      await exported;
      own.detach?.();
      await within(history.journal.close(), step);
      if (own.closeAfterJournal) await own.closeAfterJournal(step);
      lock.release();
    })();
    return closed;
  };
  return { ...started, app, trace, history, lock, clock, close };
}
