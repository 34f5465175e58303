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
 * flushes the journal and releases the lock. The lock, journal, metrics, HTTP app and shutdown are the
 * sequence both servers share (boot.ts bootServer); observeEngine is what is this mode's own.
 *
 * With `kubeletLog` (--kubelet-log FILE | --kubelet-journal) the kubelet's own log is followed from now on
 * (log-follow.ts) and what it says about observed pods joins the live trace (log-events.ts): config ops,
 * sync errors, kills, probes, Events, and back-off windows the log states, which confirm the inferred ones.
 *
 * With `kube` (--kubeconfig FILE, or the service account inside a pod) the observer also sees the kubelet's
 * input: the API's pods bound to this node and their Events, listed and watched with GET only
 * (api-source.ts); pods the runtime does not show yet are shown as the API has them.
 */
import {
  defaultKubeletConfiguration,
  type KubeletConfiguration,
  type ReadOnlyCri,
  RemoteRuntime,
  readOnlyCri,
} from '@syncscope/core';
import type { FastifyRequest } from 'fastify';
import { type Boot, type BootedServer, bootServer, type RoleEngine, type ServerOptions } from '../boot.ts';
import { within } from '../lifecycle.ts';
import { sendStatus, status } from '../status.ts';
import { ApiSource } from './api-source.ts';
import type { KubeAccess } from './kube-access.ts';
import { KubeClient } from './kube-client.ts';
import { type LogFollower, startLogFollower } from './log-follow.ts';
import { OBSERVE_REFUSAL, Observer } from './observer.ts';

export interface ObserveAppOptions extends ServerOptions {
  /** The CRI endpoint of the node's runtime, e.g. unix:///run/containerd/containerd.sock. */
  runtimeEndpoint: string;
  /** The node kubelet's log to follow: a file (like tail -F) or its journal (journalctl -u kubelet -f). */
  kubeletLog?: { file?: string; journal?: boolean };
  /** The API server to watch the node's pods on (read-only: list, watch, get). */
  kube?: KubeAccess;
}

/** What the observing server has beyond every server's (BootedServer: app, trace, history, lock, clock, close). */
interface ObserveParts {
  observer: Observer;
  /** Following the kubelet's log, when asked to. */
  follower?: LogFollower;
  /** Watching the API's pods of this node, when given access. */
  api?: ApiSource;
  /** The read-only client, with its counts of calls let through and refused. */
  cri: ReadOnlyCri<RemoteRuntime>;
  simulated: false;
  runtimeEndpoint: string;
}

export type ObservedApp = BootedServer & ObserveParts;

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Would the request change something? Decided on the route the router matched, as access is (access.ts):
 * any method but a read, or a route that declares itself a write, however the target was spelled
 * (percent-escapes, an absolute-form `http://host/api/...`, dot segments). A request no route matched goes
 * to the 404 handler, which changes nothing.
 */
function isWrite(req: FastifyRequest): boolean {
  if (req.is404 || req.routeOptions.config.changesNothing) return false;
  return !READS.has(req.method) || req.routeOptions.config.access === 'write';
}

export async function buildObserveApp(opts: ObserveAppOptions): Promise<ObservedApp> {
  return bootServer(opts, {
    shutdownSteps: 4,
    engine: async (boot) => observeEngine(opts, boot),
  });
}

/** The observing server's own part of the boot (see the file comment) and of close(). */
function observeEngine(opts: ObserveAppOptions, { clock, warn, history }: Boot): RoleEngine<ObserveParts> {
  const config: KubeletConfiguration = { ...defaultKubeletConfiguration, ...opts.config };
  const ro = readOnlyCri(new RemoteRuntime(opts.runtimeEndpoint));
  const endpoint = ro.cri.endpoint;
  const observer = new Observer({ cri: ro.cri, clock, trace: history.recorder, config, endpoint });
  let follower: LogFollower | undefined;
  const api = opts.kube
    ? new ApiSource({
        client: new KubeClient(opts.kube),
        nodeName: config.nodeName,
        clock,
        trace: history.recorder,
        warn,
        onRuntime: (uid) => observer.onRuntime(uid),
      })
    : undefined;
  if (api) observer.attachApi(api);
  return {
    runtime: 'observe',
    endpoint,
    nodeName: config.nodeName,
    pods: observer,
    observed: true,
    serve: async () => ({
      engine: observer,
      examples: [],
      podLogsDirectory: config.podLogsDirectory,
    }),
    onHttp(app) {
      // after the access check (a request without the token still gets its 401): nothing here writes
      app.addHook('onRequest', async (req, reply) => {
        if (isWrite(req)) return sendStatus(reply, status(403, 'Forbidden', OBSERVE_REFUSAL));
      });
    },
    start() {
      observer.start();
      api?.start();
      follower = opts.kubeletLog
        ? startLogFollower({
            ...(opts.kubeletLog.file !== undefined ? { file: opts.kubeletLog.file } : { journal: true }),
            onEvents: (events) => {
              for (const ev of events) observer.joinLog(ev);
            },
            warn,
          })
        : undefined;
      return {
        observer,
        ...(follower ? { follower } : {}),
        ...(api ? { api } : {}),
        cri: ro,
        simulated: false,
        runtimeEndpoint: endpoint,
      };
    },
    async stop(step) {
      await within(Promise.all([follower?.stop(), api?.stop()]), step);
      await within(observer.stop(), step);
    },
    async closeRuntime(_step, exported) {
      await exported;
      ro.cri.close();
    },
  };
}
