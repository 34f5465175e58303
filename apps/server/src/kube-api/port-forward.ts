/**
 * A pod's portforward subresource (`GET|POST /api/v1/namespaces/:ns/pods/:name/portforward`), as kubectl
 * 1.30+ opens it: a WebSocket upgrade with the subprotocol `SPDY/3.1+portforward.k8s.io`, in whose binary
 * messages the client speaks SPDY. On the simulated node this server serves the SPDY session itself
 * (port-forward-session.ts) and each forwarded connection reaches what listens in the pod
 * (port-forward-target.ts); on a real runtime the CRI's PortForward is called for the pod's sandbox
 * before the upgrade and the tunnel joined to the runtime's streaming server (exec-proxy.ts). Older kubectl
 * (and newer ones as their fallback, a POST) upgrades the HTTP connection to SPDY/3.1 itself
 * (`X-Stream-Protocol-Version: portforward.k8s.io`, spdy-socket.ts): the same session then reads the
 * connection's bytes instead of the WebSocket's messages.
 *
 * Like exec, every refusal is answered before the WebSocket plugin takes the upgrade: a missing pod is the
 * apiserver's NotFound, a pod with no running container (or no ready sandbox) the kubelet's plain-text
 * 500, a plain request a 400 Status naming both ways in, a SPDY upgrade offering no portforward.k8s.io a
 * 403, a runtime refusing PortForward a 500 Status, neither runtime a 501. A write route: the token when
 * the server has one, refused in observe mode; open connections are capped per client address and in total.
 */
import type { Pod } from '@syncscope/core/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WRITE_ROUTE, WS_BEARER_PROTOCOL_PREFIX } from '../access.ts';
import { addressKey } from '../limits.ts';
import { StreamCaps } from '../routes/ws-stream-route.ts';
import { badRequest, sendStatus, status } from '../status.ts';
import type { ExecRunner } from './exec-plan.ts';
import { proxySpdy, type StreamingRuntime } from './exec-proxy.ts';
import { servePortForward } from './port-forward-session.ts';
import { forwardToSim } from './port-forward-target.ts';
import { notFoundOf } from './respond.ts';
import { isSpdyUpgrade, refuseSpdy, type StreamSocket, spdyHandshake, upgradeSpdy } from './spdy-socket.ts';

/** The subprotocol client-go offers: the SPDY tunnelling prefix and the port-forward protocol. */
const PORT_FORWARD_TUNNEL_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
/**
 * The name it goes by inside this server: a '/' is not allowed in a subprotocol token (RFC 6455), so the
 * WebSocket library would refuse the handshake; the offer is renamed before the upgrade and the answer's
 * header named back, so the client reads the name it sent.
 */
const TUNNEL_TOKEN = 'SPDY-3.1+portforward.k8s.io';
/** The port-forward stream protocol (X-Stream-Protocol-Version), with or without the tunnel. */
const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

interface PortForwardOptions {
  /** Runs a command in a container of the simulated node; absent on a real runtime. */
  run?: ExecRunner;
  /** A real runtime's streaming calls; absent on the simulated node. */
  streaming?: StreamingRuntime;
}

const MAX_CONNECTIONS = 64;
const MAX_CONNECTIONS_PER_ADDRESS = 16;
const CLOSE_TRY_AGAIN_LATER = 1013;
const CLOSE_PROTOCOL_ERROR = 1002;

type Params = { ns: string; name: string };

/** The runtime id of the pod's first running container, or '' when none runs. */
function runningContainerId(pod: Pod): string {
  for (const s of pod.status?.containerStatuses ?? [])
    if (s.state?.running && s.containerID) return s.containerID.replace(/^[a-z0-9.+-]*:\/\//, '');
  return '';
}

const offered = (req: FastifyRequest) =>
  String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith(WS_BEARER_PROTOCOL_PREFIX));

async function portForwardRoutes(app: FastifyInstance, opts: PortForwardOptions): Promise<void> {
  const { engine } = app.syncscope;
  const caps = new StreamCaps(MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS, 'port-forward connections');
  const url = '/api/v1/namespaces/:ns/pods/:name/portforward';
  /** The runtime's streaming URL of each request about to be upgraded (a real runtime). */
  const upstream = new WeakMap<object, string>();

  const check = async (req: FastifyRequest, reply: FastifyReply) => {
    const { ns, name } = req.params as Params;
    const pod = engine.getPod(ns, name);
    if (!pod) return sendStatus(reply, notFoundOf('pods', name));
    if (!opts.run && !opts.streaming)
      return sendStatus(
        reply,
        status(
          501,
          'NotImplemented',
          "pods/portforward is not served by this node: its runtime's streaming server is not reached yet (port-forward is served on the simulated node)",
        ),
      );
    if (opts.run && runningContainerId(pod) === '')
      return reply
        .code(500)
        .type('text/plain; charset=utf-8')
        .send(`pod ${name} has no running container to forward to`);
    const upgrade = String(req.headers.upgrade ?? '');
    const spdy = isSpdyUpgrade(req) ? spdyHandshake(req, [PORT_FORWARD_PROTOCOL]) : undefined;
    if (spdy && !('protocol' in spdy)) return refuseSpdy(reply, spdy);
    if (!spdy && upgrade.toLowerCase() !== 'websocket')
      return sendStatus(
        reply,
        badRequest(
          `pods/portforward is not served over ${upgrade ? `the ${upgrade} protocol` : 'a plain request'}: open a WebSocket with the subprotocol ${PORT_FORWARD_TUNNEL_PROTOCOL}, or upgrade to SPDY/3.1 with ${PORT_FORWARD_PROTOCOL}`,
        ),
      );
    const asked = offered(req);
    if (!spdy && !asked.includes(PORT_FORWARD_TUNNEL_PROTOCOL))
      return sendStatus(
        reply,
        badRequest(
          `requested protocol(s) are not supported: [${asked.join(' ')}]; supports [${PORT_FORWARD_TUNNEL_PROTOCOL}]`,
        ),
      );
    if (opts.streaming) {
      const runtime = opts.streaming;
      try {
        const sandbox = await runtime.sandboxOf(pod.metadata.uid ?? '');
        if (sandbox === '')
          return reply.code(500).type('text/plain; charset=utf-8').send(`pod ${name} has no ready sandbox`);
        upstream.set(req.raw, await runtime.portForward(sandbox));
      } catch (e) {
        const why = (e as { details?: unknown }).details ?? (e instanceof Error ? e.message : String(e));
        return sendStatus(reply, status(500, 'InternalError', `Internal error occurred: ${String(why)}`));
      }
    }
    if (spdy) {
      const place = caps.take(addressKey(req.ip));
      if ('refused' in place) return sendStatus(reply, status(429, 'TooManyRequests', place.refused));
      const conn = upgradeSpdy(req, reply, spdy.protocol);
      conn.once('close', place.release);
      return serve(conn, req);
    }
    req.raw.headers['sec-websocket-protocol'] = String(req.headers['sec-websocket-protocol'])
      .split(',')
      .map((p) => (p.trim() === PORT_FORWARD_TUNNEL_PROTOCOL ? TUNNEL_TOKEN : p.trim()))
      .join(', ');
  };
  app.websocketServer.on('headers', (headers: string[]) => {
    const i = headers.indexOf(`Sec-WebSocket-Protocol: ${TUNNEL_TOKEN}`);
    if (i >= 0) headers[i] = `Sec-WebSocket-Protocol: ${PORT_FORWARD_TUNNEL_PROTOCOL}`;
  });
  const handler = async (_req: FastifyRequest, reply: FastifyReply) =>
    sendStatus(reply, badRequest('pods/portforward is a WebSocket or a SPDY/3.1 upgrade'));

  /** Serves the port-forward session of `req` on `socket`: SPDY in a WebSocket's messages or on the wire. */
  const serve = (socket: StreamSocket, req: FastifyRequest) => {
    const proxied = upstream.get(req.raw);
    if (proxied) return proxySpdy(socket, proxied, PORT_FORWARD_PROTOCOL);
    const { ns, name } = req.params as Params;
    const pod = engine.getPod(ns, name);
    const run = opts.run;
    if (!pod || !run) return socket.close(CLOSE_PROTOCOL_ERROR, 'the pod is gone');
    const uid = pod.metadata.uid ?? '';
    servePortForward(socket, (port, data, error) => {
      // the container is looked up per connection: the pod may have restarted it meanwhile
      const current = engine.getPodByUID(uid) ?? pod;
      const containerId = runningContainerId(current);
      if (containerId === '') {
        error.write(Buffer.from(`pod ${name} has no running container to forward to`));
        error.end();
        data.end();
        return;
      }
      void forwardToSim({ run, containerId, pod: name, uid }, port, data, error);
    });
  };

  app.route({
    method: 'GET',
    url,
    ...WRITE_ROUTE,
    exposeHeadRoute: false,
    preHandler: check,
    handler,
    wsHandler: (socket, req) => {
      const place = caps.take(addressKey(req.ip));
      if ('refused' in place) return socket.close(CLOSE_TRY_AGAIN_LATER, place.refused);
      socket.once('close', place.release);
      if (socket.protocol !== TUNNEL_TOKEN)
        return socket.close(CLOSE_PROTOCOL_ERROR, `subprotocol ${socket.protocol || '(none)'} is not served`);
      serve(socket, req);
    },
  });
  app.route({ method: 'POST', url, ...WRITE_ROUTE, preHandler: check, handler });
}

export default portForwardRoutes;
