/**
 * buildObserveApp: the server in observe mode (`--observe`), apart from listen. It watches the kubelet that
 * owns a node's runtime and changes nothing: no pod store, no examples, no engine; the CRI client is wrapped
 * read-only (readOnlyCri) and counted. It starts, in order: the data dir lock → clock → trace journal and
 * recorder (the same journal as managed mode: history and seqs go on across restarts) → read-only CRI →
 * Observer (observer.ts: the PLEG over every pod on the runtime) → `server.start` (runtime `observe`) → the
 * HTTP app, with every write refused by a 403 Status before any route runs (a pod create or delete, a
 * fault; decided on the matched route, not on how its path was spelled) → the observer's relist.
 *
 * The routes are the managed mode's: the views read the same trace, and container logs are read from the
 * kubelet's layout under podLogsDirectory (/var/log/pods by default). Listening is main.ts's, with the same
 * rules (loopback unless a token is set). close() stops the HTTP app, the observer, the channel, then
 * flushes the journal and releases the lock.
 *
 * With `kubeletLog` (--kubelet-log FILE | --kubelet-journal) the kubelet's own log is followed from now on
 * (log-follow.ts) and what it says about observed pods joins the live trace (log-events.ts): config ops,
 * sync errors, kills, probes, Events, and back-off windows the log states, which confirm the inferred ones.
 */
import { join } from 'node:path';
import {
  type Clock,
  defaultKubeletConfiguration,
  type KubeletConfiguration,
  type ReadOnlyCri,
  RealClock,
  RemoteRuntime,
  readOnlyCri,
} from '@syncscope/core';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_WEB_ROOT, SERVER_VERSION, type ServerOptions } from '../app.ts';
import { createHttpApp } from '../http.ts';
import { SHUTDOWN_TIMEOUT_MS, TRACE_DIR, within } from '../lifecycle.ts';
import { type JournaledTrace, openTrace } from '../lifecycle-trace.ts';
import { KubeletMetrics } from '../metrics.ts';
import { attachOtlp } from '../otel/exporter.ts';
import { sendStatus, status } from '../status.ts';
import { type DataDirLock, recordListening, withDataDirLock } from '../store/lock.ts';
import { type LogFollower, startLogFollower } from './log-follow.ts';
import { OBSERVE_REFUSAL, Observer } from './observer.ts';

export interface ObserveAppOptions extends ServerOptions {
  /** The CRI endpoint of the node's runtime, e.g. unix:///run/containerd/containerd.sock. */
  runtimeEndpoint: string;
  /** The node kubelet's log to follow: a file (like tail -F) or its journal (journalctl -u kubelet -f). */
  kubeletLog?: { file?: string; journal?: boolean };
}

export interface ObservedApp {
  app: FastifyInstance;
  observer: Observer;
  /** Following the kubelet's log, when asked to. */
  follower?: LogFollower;
  /** The read-only client, with its counts of calls let through and refused. */
  cri: ReadOnlyCri<RemoteRuntime>;
  trace: TraceRecorder;
  history: JournaledTrace;
  lock: DataDirLock;
  clock: Clock;
  simulated: false;
  runtimeEndpoint: string;
  close(): Promise<void>;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Would the request change something? Decided on the route the router matched, as access is (access.ts):
 * any method but a read, or a route that declares itself a write, however the target was spelled
 * (percent-escapes, an absolute-form `http://host/api/...`, dot segments). A request no route matched goes
 * to the 404 handler, which changes nothing.
 */
function isWrite(req: FastifyRequest): boolean {
  if (req.is404) return false;
  return !READS.has(req.method) || req.routeOptions.config.access === 'write';
}

export async function buildObserveApp(opts: ObserveAppOptions): Promise<ObservedApp> {
  return withDataDirLock(opts.dataDir, (lock) => buildLocked(opts, lock));
}

async function buildLocked(opts: ObserveAppOptions, lock: DataDirLock): Promise<ObservedApp> {
  const clock = opts.clock ?? new RealClock();
  const warn = opts.warn ?? ((msg: string) => console.warn(msg));
  const { trace: history } = openTrace({
    dir: join(opts.dataDir, TRACE_DIR),
    clock,
    capacity: opts.traceCapacity,
    segmentBytes: opts.journalSegmentBytes,
    maxBytes: opts.journalMaxBytes,
    flushIntervalMs: opts.journalFlushMs,
    warn,
  });
  const trace = history.recorder;
  const config: KubeletConfiguration = { ...defaultKubeletConfiguration, ...opts.config };
  const ro = readOnlyCri(new RemoteRuntime(opts.runtimeEndpoint));
  const endpoint = ro.cri.endpoint;
  const observer = new Observer({ cri: ro.cri, clock, trace, config, endpoint });
  const metrics = new KubeletMetrics(history, observer);
  const otlp = attachOtlp(trace, opts.otlp, {
    nodeName: config.nodeName,
    version: SERVER_VERSION,
    registry: metrics.registry,
    observed: true,
    now: () => clock.now(),
  });
  trace.record({ type: 'server.start', version: SERVER_VERSION, runtime: 'observe', endpoint });

  const app = await createHttpApp({
    engine: observer,
    trace: history,
    clock,
    token: opts.token,
    bind: opts.host,
    allowedHosts: opts.allowedHosts,
    webRoot: opts.webRoot ?? DEFAULT_WEB_ROOT,
    examples: [],
    logger: opts.logger,
    podLogsDirectory: config.podLogsDirectory,
    metrics,
    limits: opts.limits,
  });
  // after the access check (a request without the token still gets its 401): nothing here writes
  app.addHook('onRequest', async (req, reply) => {
    if (isWrite(req)) return sendStatus(reply, status(403, 'Forbidden', OBSERVE_REFUSAL));
  });
  recordListening(app.server, lock, warn);
  observer.start();
  const follower = opts.kubeletLog
    ? startLogFollower({
        ...(opts.kubeletLog.file !== undefined ? { file: opts.kubeletLog.file } : { journal: true }),
        onEvents: (events) => {
          for (const ev of events) observer.joinLog(ev);
        },
        warn,
      })
    : undefined;

  let closed: Promise<void> | undefined;
  const close = () => {
    const step = SHUTDOWN_TIMEOUT_MS / 4;
    closed ??= (async () => {
      await within(app.close(), step);
      await within(follower?.stop() ?? Promise.resolve(), step);
      await within(observer.stop(), step);
      await within(otlp.close(), step);
      ro.cri.close();
      await within(history.journal.close(), step);
      lock.release();
    })();
    return closed;
  };
  return {
    app,
    observer,
    ...(follower ? { follower } : {}),
    cri: ro,
    trace,
    history,
    lock,
    clock,
    simulated: false,
    runtimeEndpoint: endpoint,
    close,
  };
}
