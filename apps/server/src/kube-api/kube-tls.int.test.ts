/**
 * The https (kubectl) port under idle sockets, over real sockets: the plain port's caps and timeouts hold
 * here too, and a TLS handshake that never starts is cut after the handshake timeout.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type Server } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { closeTls, ensureServingCert, listenTls, type ServingCert, type TlsLimits } from './kube-tls.ts';

let tmp: string;
let cert: ServingCert;
let app: FastifyInstance;
let server: Server | undefined;
const idle: Socket[] = [];

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'kube-tls-'));
  cert = ensureServingCert(tmp, '127.0.0.1');
  const clock = new FakeClock();
  app = await createHttpApp({ engine: new FakeEngine(clock), trace: new TraceRecorder(clock, 100), clock });
  await app.ready();
});
afterEach(async () => {
  for (const s of idle.splice(0)) s.destroy();
  if (server) await closeTls(server);
  server = undefined;
  await app.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function listen(opts: TlsLimits = {}): Promise<number> {
  server = await listenTls(app, cert, '127.0.0.1', 0, opts);
  return (server.address() as AddressInfo).port;
}

/** Opens `n` TCP sockets that never send a byte (no ClientHello); resolves once the server has taken each. */
async function openIdle(port: number, n: number): Promise<void> {
  let taken = 0;
  const all = new Promise<void>((resolve) => {
    const count = () => {
      if (++taken === n) resolve();
    };
    // taken into the process, or dropped at once by net.Server's own maxConnections
    server?.on('connection', count);
    server?.on('drop', count);
  });
  for (let i = 0; i < n; i++) {
    const s = connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    idle.push(s);
  }
  await all;
}

/** GET /healthz over TLS, trusting the serving certificate: the status, how long it took, on a reused socket? */
function healthz(
  port: number,
  agent: Agent | false = false,
): Promise<{ status: number; ms: number; reused: boolean }> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', ca: cert.cert, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, ms: performance.now() - start, reused: req.reusedSocket }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

it('answers a real TLS request at once while 300 idle sockets are open', async () => {
  const port = await listen();
  await openIdle(port, 300);
  const res = await healthz(port);
  expect(res.status).toBe(200);
  expect(res.ms).toBeLessThan(2_000);
});

it('closes a socket that does not start its TLS handshake within the handshake timeout', async () => {
  const port = await listen({ handshakeTimeoutMs: 300 });
  const start = performance.now();
  const s = connect(port, '127.0.0.1');
  s.on('error', () => undefined);
  idle.push(s);
  // bounded: without a handshake timeout the socket would stay open for Node's default of 120 s
  const guard = new Promise<never>((_, reject) => {
    const t = setTimeout(() => reject(new Error('the idle socket is still open after 10 s')), 10_000);
    s.once('close', () => clearTimeout(t));
  });
  await Promise.race([once(s, 'close'), guard]);
  expect(performance.now() - start).toBeGreaterThanOrEqual(250);
});

it('makes room for idle sockets past the per-address cap by closing idle ones, not one that sent a request', async () => {
  const port = await listen({ maxConnectionsPerAddress: 4 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: cert.cert });
  try {
    expect((await healthz(port, agent)).status).toBe(200);
    await openIdle(port, 10);
    const again = await healthz(port, agent);
    expect(again).toMatchObject({ status: 200, reused: true });
  } finally {
    agent.destroy();
  }
});
