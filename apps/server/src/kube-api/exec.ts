/**
 * A pod's exec and attach subresources (`GET|POST /api/v1/namespaces/:ns/pods/:name/{exec,attach}`), as
 * kubectl 1.30+ opens them: a WebSocket upgrade with the subprotocol `v5.channel.k8s.io` (or
 * `v4.channel.k8s.io`), its query checked and the pod and container found before the upgrade
 * (exec-plan.ts), the exec then served by exec-session.ts.
 *
 * Older kubectl (up to 1.29, and newer ones as their fallback) asks instead for an HTTP upgrade to SPDY/3.1
 * with `X-Stream-Protocol-Version: v4.channel.k8s.io` (spdy-socket.ts): its streams are read as the same
 * channels (spdy-exec.ts) and served by the same session.
 *
 * Every refusal is answered in preHandler, before the WebSocket plugin would take the upgrade, so the client
 * reads it as the failed upgrade it is: kubectl then retries over SPDY (a POST), gets the same answer and
 * prints it (`pods "x" not found`, `unable to upgrade connection: container not found ("app")`). A write
 * route: the token is needed when the server has one, a browser must come from this server's page, and
 * observe mode refuses it (403) before it runs. Commands run on the simulated node (its shell interpreter,
 * the container's files); on a real runtime the CRI's Exec is called before the upgrade and the client's
 * connection joined to the runtime's streaming server (exec-proxy.ts: a WebSocket message for message, a
 * SPDY connection byte for byte; a 500 Status when the runtime refuses); with neither, a 501 Status. Attach
 * follows the container's output from its log file (exec-attach.ts), on either runtime.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WRITE_ROUTE, WS_BEARER_PROTOCOL_PREFIX } from '../access.ts';
import { addressKey } from '../limits.ts';
import { StreamCaps } from '../routes/ws-stream-route.ts';
import { badRequest, sendStatus, status } from '../status.ts';
import { serveAttach } from './exec-attach.ts';
import { negotiateProtocol, STREAM_PROTOCOL_V4, SUPPORTED_STREAM_PROTOCOLS } from './exec-channel.ts';
import type { ExecRunner } from './exec-plan.ts';
import { isRefusal, planStream, type StreamKind } from './exec-plan.ts';
import { proxyExec, proxySpdy, type StreamingRuntime } from './exec-proxy.ts';
import { serveExec } from './exec-session.ts';
import { notFoundOf } from './respond.ts';
import { acceptExecStreams } from './spdy-exec.ts';
import { isSpdyUpgrade, refuseSpdy, type StreamSocket, spdyHandshake, upgradeSpdy } from './spdy-socket.ts';

interface ExecOptions {
  /** Runs a command in a container of the simulated node; absent on a real runtime. */
  run?: ExecRunner;
  /** A real runtime's streaming calls; absent on the simulated node. */
  streaming?: StreamingRuntime;
}

/** Open exec streams at most, in total and from one client address. */
const MAX_STREAMS = 64;
const MAX_STREAMS_PER_ADDRESS = 16;
/** RFC 6455 "Try Again Later"; "Protocol Error". */
const CLOSE_TRY_AGAIN_LATER = 1013;
const CLOSE_PROTOCOL_ERROR = 1002;

const EXEC_ROUTE = { config: { ...WRITE_ROUTE.config, multiValued: true } } as const;

type Params = { ns: string; name: string };

const isWebSocket = (req: FastifyRequest) => String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';

/** The Sec-WebSocket-Protocol offers, the bearer token's left out. */
const offeredProtocols = (req: FastifyRequest) =>
  String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith(WS_BEARER_PROTOCOL_PREFIX));

async function execRoutes(app: FastifyInstance, opts: ExecOptions): Promise<void> {
  const { engine } = app.syncscope;
  const caps = new StreamCaps(MAX_STREAMS, MAX_STREAMS_PER_ADDRESS, 'exec streams');
  /** The runtime's streaming URL of each exec request about to be upgraded. */
  const upstream = new WeakMap<object, string>();

  const plan = (kind: StreamKind, req: FastifyRequest) => {
    const { ns, name } = req.params as Params;
    const pod = engine.getPod(ns, name);
    if (!pod) return { status: notFoundOf('pods', name) };
    return planStream(kind, pod, (req.query ?? {}) as Record<string, unknown>);
  };

  /** Runs the exec or attach of `req` on `socket`, a WebSocket or SPDY streams read as its channels. */
  const serve = (kind: StreamKind, socket: StreamSocket, req: FastifyRequest) => {
    const { ns, name } = req.params as Params;
    const pod = engine.getPod(ns, name);
    const p = pod && planStream(kind, pod, (req.query ?? {}) as Record<string, unknown>);
    // the pod changed between the check and the upgrade: nothing to run
    if (!pod || !p || isRefusal(p)) return socket.close(CLOSE_PROTOCOL_ERROR, 'the container is gone');
    if (kind === 'exec') {
      if (opts.run) return serveExec(socket, p, opts.run);
      const url = upstream.get(req.raw);
      return url ? proxyExec(socket, url) : socket.close(CLOSE_PROTOCOL_ERROR, 'no exec session');
    }
    const uid = pod.metadata.uid ?? '';
    const dir = engine.nodeInfo().configuration.podLogsDirectory;
    void serveAttach(socket, p, { dir, pod, current: () => engine.getPodByUID(uid) });
  };

  for (const kind of ['exec', 'attach'] as const) {
    const url = `/api/v1/namespaces/:ns/pods/:name/${kind}`;
    const check = async (req: FastifyRequest, reply: FastifyReply) => {
      const p = plan(kind, req);
      if (isRefusal(p)) {
        if ('status' in p) return sendStatus(reply, p.status);
        return reply.code(p.code).type('text/plain; charset=utf-8').send(p.text);
      }
      const proxied = kind === 'exec' && !opts.run ? opts.streaming : undefined;
      if (kind === 'exec' && !opts.run && !proxied)
        return sendStatus(
          reply,
          status(
            501,
            'NotImplemented',
            "pods/exec is not served by this node: its runtime's streaming server is not reached yet (exec is served on the simulated node)",
          ),
        );
      const spdy = isSpdyUpgrade(req) ? spdyHandshake(req, [STREAM_PROTOCOL_V4]) : undefined;
      if (spdy && !('protocol' in spdy)) return refuseSpdy(reply, spdy);
      if (!spdy && !isWebSocket(req)) {
        const upgrade = req.headers.upgrade ? `the ${req.headers.upgrade} protocol` : 'a plain request';
        return sendStatus(
          reply,
          badRequest(
            `pods/${kind} is not served over ${upgrade}: open a WebSocket with the subprotocol ${SUPPORTED_STREAM_PROTOCOLS.join(' or ')}, or upgrade to SPDY/3.1 with ${STREAM_PROTOCOL_V4}`,
          ),
        );
      }
      const offered = offeredProtocols(req);
      if (!spdy && !negotiateProtocol(offered.join(',')))
        return sendStatus(
          reply,
          badRequest(
            `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${SUPPORTED_STREAM_PROTOCOLS.join(' ')}]`,
          ),
        );
      if (proxied)
        try {
          upstream.set(req.raw, await proxied.exec({ ...p, cmd: p.command }));
        } catch (e) {
          const why = (e as { details?: unknown }).details ?? (e instanceof Error ? e.message : String(e));
          return sendStatus(reply, status(500, 'InternalError', `Internal error occurred: ${String(why)}`));
        }
      if (!spdy) return;
      const place = caps.take(addressKey(req.ip));
      if ('refused' in place) return sendStatus(reply, status(429, 'TooManyRequests', place.refused));
      const conn = upgradeSpdy(req, reply, spdy.protocol);
      conn.once('close', place.release);
      const url = upstream.get(req.raw);
      if (url) return proxySpdy(conn, url, spdy.protocol);
      acceptExecStreams(conn, p, (socket) => serve(kind, socket, req));
    };
    const handler = async (_req: FastifyRequest, reply: FastifyReply) =>
      sendStatus(reply, badRequest(`pods/${kind} is a WebSocket or a SPDY/3.1 upgrade`));
    app.route({
      method: 'GET',
      url,
      ...EXEC_ROUTE,
      // a stream has no head to show
      exposeHeadRoute: false,
      preHandler: check,
      handler,
      wsHandler: (socket, req) => {
        const place = caps.take(addressKey(req.ip));
        if ('refused' in place) return socket.close(CLOSE_TRY_AGAIN_LATER, place.refused);
        socket.once('close', place.release);
        if (!SUPPORTED_STREAM_PROTOCOLS.includes(socket.protocol))
          return socket.close(
            CLOSE_PROTOCOL_ERROR,
            `subprotocol ${socket.protocol || '(none)'} is not served`,
          );
        serve(kind, socket, req);
      },
    });
    app.route({ method: 'POST', url, ...EXEC_ROUTE, preHandler: check, handler });
  }
}

export default execRoutes;
