/**
 * The HTTP side of a SPDY/3.1 stream request, as kubectl up to 1.29 (and newer ones as their fallback) opens
 * exec, attach and port-forward (apimachinery util/httpstream and its spdy package):
 *
 *   POST …/exec  Connection: Upgrade, Upgrade: SPDY/3.1, X-Stream-Protocol-Version: v4.channel.k8s.io, …
 *   ◀── 101 Switching Protocols, Upgrade: SPDY/3.1, X-Stream-Protocol-Version: <the one chosen>
 *   then the connection's bytes are one SPDY session (the client opens the streams).
 *
 * The protocol is the client's first offer the server serves (httpstream.Handshake): none offered is a 400,
 * none served a 403 naming what is (X-Accepted-Stream-Protocol-Versions), both as plain text, which kubectl
 * prints after `unable to upgrade connection:`. The upgraded connection is handed on as a StreamSocket, the
 * same shape the sessions take from a WebSocket, so one session serves both transports.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What a stream session uses of its connection: a WebSocket (ws), an upgraded SPDY connection whose bytes
 * arrive as messages (upgradeSpdy), or SPDY streams read as channel messages (spdy-exec.ts).
 */
export interface StreamSocket {
  /** The negotiated subprotocol or stream protocol version. */
  readonly protocol: string;
  /** OPEN (1) while messages may be sent; CLOSING (2), CLOSED (3) after. */
  readonly readyState: number;
  send(data: Buffer, opts?: { binary?: boolean }): void;
  /** Ends the connection: 1000 after what was sent is delivered, any other code at once. */
  close(code?: number, reason?: string): void;
  on(event: 'message', fn: (data: Buffer | ArrayBuffer | Buffer[]) => void): unknown;
  on(event: 'close', fn: () => void): unknown;
  once(event: 'close', fn: () => void): unknown;
}

export const SOCKET_OPEN = 1;
export const SOCKET_CLOSING = 2;
export const SOCKET_CLOSED = 3;
const CLOSE_NORMAL = 1000;

const HEADER_SPDY_31 = 'SPDY/3.1';

/** A request asking to switch to SPDY/3.1 (Connection names Upgrade, Upgrade names SPDY/3.1). */
export function isSpdyUpgrade(req: FastifyRequest): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  return connection.includes('upgrade') && upgrade.includes(HEADER_SPDY_31.toLowerCase());
}

/** The outcome of the stream protocol handshake. */
export type SpdyHandshake =
  | { protocol: string }
  | { code: 400 | 403; text: string; accepted: readonly string[] };

/** Chooses the client's first offered X-Stream-Protocol-Version that `served` holds. Pure. */
export function spdyHandshake(req: FastifyRequest, served: readonly string[]): SpdyHandshake {
  const offered = String(req.headers['x-stream-protocol-version'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (offered.length === 0)
    return { code: 400, text: 'unable to upgrade: X-Stream-Protocol-Version is required', accepted: [] };
  const chosen = offered.find((p) => served.includes(p));
  if (chosen) return { protocol: chosen };
  return {
    code: 403,
    text: `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${served.join(' ')}]`,
    accepted: served,
  };
}

/** Answers a failed handshake, before any upgrade. */
export function refuseSpdy(reply: FastifyReply, h: Exclude<SpdyHandshake, { protocol: string }>) {
  if (h.accepted.length > 0) reply.header('X-Accepted-Stream-Protocol-Versions', h.accepted.join(', '));
  return reply.code(h.code).type('text/plain; charset=utf-8').send(`${h.text}\n`);
}

/**
 * The bytes the client sent past its request head, which the WebSocket plugin keeps with the request
 * under its own symbol (empty in practice: a SPDY client waits for the 101 before it writes).
 */
function upgradeHead(raw: object): Buffer {
  for (const s of Object.getOwnPropertySymbols(raw)) {
    const v = (raw as Record<symbol, unknown>)[s];
    if (s.description === 'ws-head' && Buffer.isBuffer(v)) return v;
  }
  return Buffer.alloc(0);
}

/**
 * Takes over the request's connection (its reply hijacked, so nothing else writes to it), answers 101
 * with `protocol`, and returns the connection as a StreamSocket whose messages are its bytes.
 */
export function upgradeSpdy(req: FastifyRequest, reply: FastifyReply, protocol: string): StreamSocket {
  reply.hijack();
  const conn: Duplex = req.raw.socket;
  conn.write(
    'HTTP/1.1 101 Switching Protocols\r\n' +
      'Connection: Upgrade\r\n' +
      `Upgrade: ${HEADER_SPDY_31}\r\n` +
      `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  return byteSocket(conn, protocol, upgradeHead(req.raw));
}

/** `conn`'s bytes as the messages of a StreamSocket; `head` is delivered first, once listeners are on. */
function byteSocket(conn: Duplex, protocol: string, head: Buffer = Buffer.alloc(0)): StreamSocket {
  const events = new EventEmitter();
  let state = SOCKET_OPEN;
  conn.on('data', (d: Buffer) => events.emit('message', d));
  // the client ended its side: it sends nothing more, so the server's side ends too
  conn.on('end', () => conn.end());
  conn.on('error', () => conn.destroy());
  conn.on('close', () => {
    state = SOCKET_CLOSED;
    events.emit('close');
  });
  if (head.length > 0) setImmediate(() => events.emit('message', head));
  return {
    protocol,
    get readyState() {
      return state;
    },
    send: (data) => {
      if (state === SOCKET_OPEN) conn.write(data);
    },
    close: (code = CLOSE_NORMAL) => {
      if (state !== SOCKET_OPEN) return;
      state = SOCKET_CLOSING;
      if (code === CLOSE_NORMAL) conn.end();
      else conn.destroy();
    },
    on: (event: 'message' | 'close', fn: (data: Buffer) => void) => events.on(event, fn),
    once: (event: 'close', fn: () => void) => events.once(event, fn),
  };
}
