/**
 * An HTTPS listener for Kubernetes clients when the server has a token.
 *
 * client-go (kubectl 1.20 and 1.32 alike) reads a kubeconfig's user — token, exec plugin, client
 * certificate — only when the server URL is https; over plain http it sends no credentials at all and the
 * server answers 401. So with a token the server also serves the same app over TLS, on a port of its own,
 * with a self-signed certificate kept in `<data-dir>/tls/` (made once with `openssl req -x509`, P-256, for
 * localhost, 127.0.0.1, ::1 and the listen address), and the kubeconfig names that URL and trusts that
 * certificate. Requests go through the very same routes and hooks (Fastify's routing), so the Host check
 * and the token apply unchanged.
 *
 * Called by main.ts after the HTTP listener is up; close() is part of the shutdown.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type ConnectionLimits, httpServerOptions, limitConnections } from '../limits.ts';

export interface ServingCert {
  cert: string;
  key: string;
}

/**
 * Where the https port's certificate and key are kept: `<dataDir>/tls/serving.{crt,key}`. The data dir's
 * check at start (data-dir.ts) moves aside anything but a regular file found there, so neither read below
 * can wait on a FIFO.
 */
export function servingCertPaths(dataDir: string): { dir: string; certFile: string; keyFile: string } {
  const dir = join(dataDir, 'tls');
  return { dir, certFile: join(dir, 'serving.crt'), keyFile: join(dir, 'serving.key') };
}

/** The certificate and key in `<dataDir>/tls`, made with openssl the first time. Throws if it cannot. */
export function ensureServingCert(dataDir: string, host: string): ServingCert {
  const { dir, certFile, keyFile } = servingCertPaths(dataDir);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const names = new Set(['DNS:localhost', 'IP:127.0.0.1', 'IP:::1']);
    if (host !== '0.0.0.0' && host !== '::') names.add(isIP(host) ? `IP:${host}` : `DNS:${host}`);
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '3650',
        '-subj',
        '/CN=syncscope',
        '-addext',
        `subjectAltName=${[...names].join(',')}`,
      ],
      { stdio: 'pipe' },
    );
    for (const file of [keyFile, certFile]) chmodSync(file, 0o600);
  }
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** A TLS handshake must be done within this, as the API server's (Go http.Server TLSHandshakeTimeout). */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

export interface TlsLimits extends ConnectionLimits {
  /** Default TLS_HANDSHAKE_TIMEOUT_MS. */
  handshakeTimeoutMs?: number;
}

/**
 * Serves `app` over TLS on host:port (0: any free port); resolves to the server once it listens.
 *
 * The limits are the plain port's (limits.ts): the same timeouts once the handshake is done, the same caps
 * on sockets in total and per address (a socket that has not sent a whole request — here: not finished
 * its handshake, or not sent a request over it — makes room for a new one), and before all that a
 * handshake that must finish within handshakeTimeoutMs. So idle sockets that never say ClientHello neither
 * shut the port nor hold a descriptor for long.
 */
export async function listenTls(
  app: FastifyInstance,
  cert: ServingCert,
  host: string,
  port: number,
  opts: TlsLimits = {},
): Promise<Server> {
  const limits = httpServerOptions();
  const server = createServer(
    {
      cert: cert.cert,
      key: cert.key,
      handshakeTimeout: opts.handshakeTimeoutMs ?? TLS_HANDSHAKE_TIMEOUT_MS,
      ...limits.http,
    },
    (req, res) => app.routing(req, res),
  );
  server.keepAliveTimeout = limits.keepAliveTimeout ?? server.keepAliveTimeout;
  server.setTimeout(limits.connectionTimeout ?? 0);
  limitConnections(server, opts);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

export function closeTls(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
