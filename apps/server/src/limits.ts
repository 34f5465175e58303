/**
 * Limits on the HTTP server's connections, so idle or half-open sockets cannot use up the process's file
 * descriptors or lock out real clients (and /healthz):
 *
 *   - a request's headers must arrive within HEADERS_TIMEOUT_MS and the whole request within
 *     REQUEST_TIMEOUT_MS (Node answers 408 and closes; it checks every CHECK_INTERVAL_MS); an idle
 *     keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS and any socket idle in both directions
 *     after IDLE_TIMEOUT_MS. A WebSocket is exempt from all of these once upgraded (ws clears its timeout).
 *   - at most `maxConnections` sockets in total (never more than the descriptor limit leaves room for) and
 *     `maxConnectionsPerAddress` from one client address. A new socket past a cap makes room by closing the
 *     oldest socket that has not yet sent a whole request (in total, or from the same address); when every
 *     socket has, the new one is closed. So a flood of half-open sockets only ever displaces its own kind,
 *     and a client that sends its request at once (a health check) is still served during one.
 *
 * httpServerOptions() goes into the Fastify constructor; limitConnections() is called once on app.server,
 * before listen (createHttpApp does both), and on the https port's server (kube-tls.ts).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';

const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const IDLE_TIMEOUT_MS = 60_000;
const CHECK_INTERVAL_MS = 1_000;
const MAX_CONNECTIONS = 4_096;
const MAX_CONNECTIONS_PER_ADDRESS = 256;
/** Descriptors kept free for everything else (journal, store, CRI socket, logs). */
const FD_RESERVE = 256;

/** The timeouts, as Fastify's constructor takes them. */
export function httpServerOptions(): Pick<
  FastifyServerOptions,
  'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout'
> & { http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } } {
  return {
    connectionTimeout: IDLE_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
    },
  };
}

/** The soft limit on open files of this process (Linux /proc), or undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A client address as caps count it: an IPv4 address seen through an IPv6 socket is the IPv4 address. */
export function addressKey(addr: string | undefined): string {
  if (!addr) return '';
  return addr.startsWith('::ffff:') && addr.includes('.') ? addr.slice(7) : addr;
}

export interface ConnectionLimits {
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
}

/**
 * Caps the server's sockets as the file header says. Returns the caps in force. Called once, before listen;
 * it only adds listeners ('connection', 'request', 'upgrade') and sets server.maxConnections as a backstop.
 */
export function limitConnections(
  server: Server,
  opts: ConnectionLimits = {},
): { maxConnections: number; maxConnectionsPerAddress: number } {
  const fds = openFileLimit();
  const maxConnections = Math.max(
    1,
    Math.min(opts.maxConnections ?? MAX_CONNECTIONS, fds === undefined ? Infinity : fds - FD_RESERVE),
  );
  const maxConnectionsPerAddress = Math.min(
    opts.maxConnectionsPerAddress ?? MAX_CONNECTIONS_PER_ADDRESS,
    maxConnections,
  );
  // Ours make room before this is reached; it only guards against a miscount.
  server.maxConnections = maxConnections + 64;

  const byAddress = new Map<string, { count: number; waiting: Set<Socket> }>();
  /** Sockets that have not sent a whole request yet, oldest first. */
  const waiting = new Set<Socket>();
  let total = 0;
  const counted = new WeakMap<Socket, string>();
  /** Counted sockets by peer: over TLS a request's socket is the TLSSocket on the counted TCP socket. */
  const byPeer = new Map<string, Socket>();
  const peerOf = (s: Socket) => `${s.remoteAddress}:${s.remotePort}`;

  const release = (socket: Socket) => {
    const key = counted.get(socket);
    if (key === undefined) return;
    counted.delete(socket);
    if (byPeer.get(peerOf(socket)) === socket) byPeer.delete(peerOf(socket));
    waiting.delete(socket);
    total--;
    const entry = byAddress.get(key);
    if (!entry) return;
    entry.waiting.delete(socket);
    if (--entry.count === 0) byAddress.delete(key);
  };
  const evict = (from: Set<Socket>): boolean => {
    const oldest = from.values().next().value;
    if (!oldest) return false;
    release(oldest);
    oldest.destroy();
    return true;
  };

  server.on('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress);
    const entry = byAddress.get(key) ?? { count: 0, waiting: new Set<Socket>() };
    if (entry.count >= maxConnectionsPerAddress && !evict(entry.waiting)) {
      socket.destroy();
      return;
    }
    if (total >= maxConnections && !evict(waiting)) {
      socket.destroy();
      return;
    }
    byAddress.set(key, entry);
    entry.count++;
    entry.waiting.add(socket);
    waiting.add(socket);
    total++;
    counted.set(socket, key);
    byPeer.set(peerOf(socket), socket);
    socket.once('close', () => release(socket));
  });
  // an in-process request (fastify's inject, injectWS) has no socket of its own: nothing was counted
  const served = (req: { socket?: Socket }) => {
    if (!req.socket) return;
    const socket = counted.has(req.socket) ? req.socket : byPeer.get(peerOf(req.socket));
    const key = socket && counted.get(socket);
    if (!socket || key === undefined) return;
    waiting.delete(socket);
    byAddress.get(key)?.waiting.delete(socket);
  };
  server.on('request', served);
  server.on('upgrade', served);
  return { maxConnections, maxConnectionsPerAddress };
}

// ---- the work one PATCH may ask for (kube-api/patch.ts, kube-api/pod-writes.ts) ----

/** Operations in one JSON patch (the apiserver's maxJSONPatchOperations, handlers/patch.go): past it 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * Bytes (as JSON) all the `copy` operations of one JSON patch may add together: 3 × the body limit, as the
 * apiserver sets json-patch's AccumulatedCopySizeLimit from its own. Copying an array into itself doubles
 * the document each time; this stops it after a few MiB instead of gigabytes (422, json-patch's words).
 */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/**
 * JSON values (scalars, lists, maps) all the `copy` operations of one JSON patch may make together. Here
 * each is a heap object, not a few bytes as in Go: 3 MiB of `[[],[[]],…]` is a million of them and 0.3 s
 * of work. 100,000 is far more than a pod holds (a 10,000-entry env list is 30,000); past it 422.
 */
export const JSON_PATCH_MAX_COPY_VALUES = 100_000;

/**
 * Array elements one JSON patch may shift (each insert or removal in an array moves the elements after it)
 * plus object members it may count to test equality: 10,000 operations at the head of a list of 300,000
 * items would otherwise take seconds. 10^8 is about 0.1 s of work, far past what a real patch needs (413).
 */
export const JSON_PATCH_MAX_WORK = 100_000_000;

/** Nesting a patch, or the pod a patch makes, may have: the manifest's cap (admission.ts MAX_MANIFEST_DEPTH). */
export const MAX_OBJECT_DEPTH = 100;
