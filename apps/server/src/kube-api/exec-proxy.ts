/**
 * Exec and port-forward on a real runtime: the CRI's streaming calls (Exec, PortForward) answer the URL of
 * the runtime's own streaming server, and the client's WebSocket is joined to it, as the kubelet proxies
 * a stream it does not serve itself:
 *   - exec: a WebSocket to the URL under `v4.channel.k8s.io` (containerd 1.6 serves no v5, and kubectl
 *     1.32 offers only v5 over a WebSocket): the two differ only in v5's close signal, which v4 cannot
 *     carry, so a client's stdin close signal is dropped (a command reading stdin to its end then waits
 *     for the client to go); every other message passes unchanged both ways, the error channel included;
 *   - port-forward: the client tunnels SPDY in WebSocket messages; the runtime is asked for SPDY itself (an
 *     HTTP upgrade to `SPDY/3.1`, `X-Stream-Protocol-Version: portforward.k8s.io`), then the bytes are
 *     copied both ways, as the apiserver's tunnelling handler does: both ends speak the same SPDY session;
 *   - a client that upgraded to SPDY itself (exec under v4.channel.k8s.io, port-forward): the runtime is
 *     asked for the same protocol and the bytes copied both ways in the same way (proxySpdy).
 * Either side closing closes the other. Messages the client sends before the runtime's side is up are held
 * (at most MAX_HELD_BYTES; past that the stream ends).
 */
import { request } from 'node:http';
import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V5 } from './exec-channel.ts';
import type { StreamSocket } from './spdy-socket.ts';

/** What a real runtime offers for streams (RemoteRuntime's streaming calls). */
export interface StreamingRuntime {
  exec(req: {
    containerId: string;
    cmd: string[];
    tty: boolean;
    stdin: boolean;
    stdout: boolean;
    stderr: boolean;
  }): Promise<string>;
  portForward(podSandboxId: string): Promise<string>;
  /** The id of the pod's ready sandbox, or '' when it has none. */
  sandboxOf(podUid: string): Promise<string>;
}

/** The label the kubelet puts on every sandbox: its pod's uid. */
const POD_UID_LABEL = 'io.kubernetes.pod.uid';

/** The streaming calls of a CRI client (RemoteRuntime's exec, portForward and listPodSandbox). */
export function criStreaming(cri: {
  exec: StreamingRuntime['exec'];
  portForward(podSandboxId: string): Promise<string>;
  listPodSandbox(filter: {
    state: { state: 'SANDBOX_READY' };
    label_selector: Record<string, string>;
  }): Promise<{ id: string }[]>;
}): StreamingRuntime {
  return {
    exec: (req) => cri.exec(req),
    portForward: (id) => cri.portForward(id),
    sandboxOf: async (uid) => {
      const ready = await cri.listPodSandbox({
        state: { state: 'SANDBOX_READY' },
        label_selector: { [POD_UID_LABEL]: uid },
      });
      return ready[0]?.id ?? '';
    },
  };
}

const MAX_HELD_BYTES = 1024 * 1024;
const OPEN = 1;
const CLOSE_NORMAL = 1000;
const CLOSE_INTERNAL_ERROR = 1011;

const toBuffer = (raw: Buffer | ArrayBuffer | Buffer[]) =>
  Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);

/** Holds the client's messages until `flush` names where they go. */
function holder(client: StreamSocket, fail: (why: string) => void) {
  let held: Buffer[] | null = [];
  let bytes = 0;
  let sink: ((b: Buffer) => void) | null = null;
  client.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    const b = toBuffer(raw);
    if (sink) return sink(b);
    bytes += b.length;
    if (bytes > MAX_HELD_BYTES) return fail('the client sent too much before the stream was up');
    held?.push(b);
  });
  return (to: (b: Buffer) => void) => {
    sink = to;
    for (const b of held ?? []) to(b);
    held = null;
  };
}

/** v5's close signal: [255, channel]. */
const CLOSE_SIGNAL = 255;

/** Joins `client` (an accepted exec WebSocket, v5 or v4) to the runtime's exec session at `url`. */
export function proxyExec(client: StreamSocket, url: string): void {
  const v5 = client.protocol === STREAM_PROTOCOL_V5;
  const upstream = new WebSocket(url.replace(/^http/, 'ws'), [STREAM_PROTOCOL_V4]);
  const fail = (why: string) => {
    if (client.readyState === OPEN) client.close(CLOSE_INTERNAL_ERROR, why.slice(0, 120));
    upstream.terminate();
  };
  const flush = holder(client, fail);
  upstream.on('open', () =>
    flush((b) => {
      if (!(v5 && b[0] === CLOSE_SIGNAL)) upstream.send(b, { binary: true });
    }),
  );
  upstream.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    if (client.readyState === OPEN) client.send(toBuffer(raw), { binary: true });
  });
  upstream.on('unexpected-response', (_req, res) =>
    fail(`the runtime refused the stream: ${res.statusCode}`),
  );
  upstream.on('error', (e) => fail(`the runtime's streaming server: ${e.message}`));
  upstream.on('close', () => {
    if (client.readyState === OPEN) client.close(CLOSE_NORMAL);
  });
  client.on('close', () => upstream.close());
}

/**
 * Joins `client` (SPDY bytes: a tunnel WebSocket, or an upgraded connection) to the runtime's session at
 * `url`, asked for by a SPDY upgrade under `protocol` (portforward.k8s.io, v4.channel.k8s.io).
 */
export function proxySpdy(client: StreamSocket, url: string, protocol: string): void {
  let up: Socket | undefined;
  const req = request(url, {
    method: 'POST',
    headers: {
      Connection: 'Upgrade',
      Upgrade: 'SPDY/3.1',
      'X-Stream-Protocol-Version': protocol,
    },
  });
  const fail = (why: string) => {
    if (client.readyState === OPEN) client.close(CLOSE_INTERNAL_ERROR, why.slice(0, 120));
    req.destroy();
    up?.destroy();
  };
  const flush = holder(client, fail);
  req.on('upgrade', (_res, socket: Socket, head: Buffer) => {
    up = socket;
    if (head.length > 0 && client.readyState === OPEN) client.send(head, { binary: true });
    socket.on('data', (d: Buffer) => {
      if (client.readyState === OPEN) client.send(d, { binary: true });
    });
    socket.on('close', () => {
      if (client.readyState === OPEN) client.close(CLOSE_NORMAL);
    });
    socket.on('error', () => socket.destroy());
    flush((b) => socket.write(b));
  });
  req.on('response', (res) => {
    res.resume();
    fail(`the runtime refused the stream: ${res.statusCode}`);
  });
  req.on('error', (e) => fail(`the runtime's streaming server: ${e.message}`));
  req.end();
  client.on('close', () => {
    req.destroy();
    up?.end();
  });
}
