/**
 * The access rules of access.ts as a client meets them: the token on every route but the health endpoint
 * (header, or the WebSocket subprotocol), Origin and Host checks, and what stays out of reach without a
 * simulator. The attack suite (attack.int.test.ts) tries the odd spellings over a real socket.
 */
import { networkInterfaces } from 'node:os';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLoopbackAddress, tokenEquals, WS_BEARER_PROTOCOL_PREFIX } from './context.ts';
import type { HostPolicy } from './hosts.ts';
import { chooseProtocol, createHttpApp } from './http.ts';
import { FakeEngine } from './testing.ts';

const TOKEN = 'correct horse battery staple';
const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web' },
  spec: { containers: [{ name: 'app', image: 'busybox:1.36' }] },
});

let engine: FakeEngine;
let trace: TraceRecorder;
let clock: FakeClock;
let apps: FastifyInstance[];

beforeEach(() => {
  clock = new FakeClock();
  engine = new FakeEngine(clock);
  trace = new TraceRecorder(clock, 100);
  trace.record({ type: 'config.update', op: 'ADD', source: 'api', podUID: 'u', pod: 'default/web' });
  apps = [];
});
afterEach(async () => {
  for (const a of apps) await a.close();
});

async function make(token?: string, hosts: HostPolicy = {}) {
  const app = await createHttpApp({ engine, trace, clock, token, ...hosts });
  apps.push(app);
  return app;
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const createPod = (app: FastifyInstance, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/api/v1/namespaces/default/pods',
    headers: { 'content-type': 'application/json', ...headers },
    payload: POD,
  });

describe('with a token', () => {
  it('guards every route but /healthz, reads and metrics included', async () => {
    const app = await make(TOKEN);
    const guardedCalls: [string, string][] = [
      ['POST', '/api/v1/namespaces/default/pods'],
      ['DELETE', '/api/v1/namespaces/default/pods/web'],
      ['PUT', '/api/v1/sim/speed'],
      ['POST', '/api/v1/sim/faults'],
      ['GET', '/api/v1/pods'],
      ['GET', '/api/v1/namespaces/default/pods'],
      ['GET', '/api/v1/namespaces/default/pods/web'],
      ['GET', '/api/v1/events'],
      ['GET', '/api/v1/node'],
      ['GET', '/api/v1/examples'],
      ['GET', '/api/v1/sim'],
      ['GET', '/api/v1/runtime/pods'],
      ['GET', '/metrics'],
      ['GET', '/api/v1/trace'],
      ['GET', '/api/v1/trace/export'],
      ['GET', '/api/v1/trace/stream'],
      ['GET', '/api/v1/namespaces/default/pods/web/log'],
      ['PATCH', '/api/v1/pods'],
    ];
    for (const [method, url] of guardedCalls) {
      for (const headers of [{}, bearer('wrong'), bearer(`${TOKEN}x`), { authorization: `Basic ${TOKEN}` }]) {
        const res = await app.inject({ method: method as 'GET', url, headers });
        expect(res.statusCode, `${method} ${url}`).toBe(401);
        expect(res.json()).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
      }
    }
    expect(engine.getPods()).toEqual([]);
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    expect((await createPod(app, bearer(TOKEN))).statusCode).toBe(201);
    for (const url of ['/api/v1/pods', '/api/v1/node', '/api/v1/events', '/metrics', '/api/v1/trace']) {
      expect((await app.inject({ url, headers: bearer(TOKEN) })).statusCode, url).toBe(200);
    }
    // an unknown path tells nothing but 404, token or not
    const unknown = await app.inject('/api/v1/secrets');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('takes no token from the query string (a URL ends up in logs and histories)', async () => {
    const app = await make(TOKEN);
    const q = `token=${encodeURIComponent(TOKEN)}`;
    expect((await app.inject(`/api/v1/trace/export?${q}`)).statusCode).toBe(401);
    expect((await app.inject(`/api/v1/namespaces/default/pods/web/log?${q}`)).statusCode).toBe(401);
    const post = await app.inject({
      method: 'POST',
      url: `/api/v1/namespaces/default/pods?${q}`,
      headers: { 'content-type': 'application/json' },
      payload: POD,
    });
    expect(post.statusCode).toBe(401);
    expect(engine.getPods()).toEqual([]);
  });

  it('opens the WebSocket with the bearer subprotocol and answers with the other protocol offered', async () => {
    const app = await make(TOKEN);
    await app.ready();
    const proto = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from(TOKEN).toString('base64url')}`;
    await expect(app.injectWS('/api/v1/trace/stream')).rejects.toThrow(/401/);
    await expect(
      app.injectWS('/api/v1/trace/stream', {
        headers: {
          'sec-websocket-protocol': `syncscope, ${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from('no').toString('base64url')}`,
        },
      }),
    ).rejects.toThrow(/401/);
    await expect(app.injectWS(`/api/v1/trace/stream?token=${encodeURIComponent(TOKEN)}`)).rejects.toThrow(
      /401/,
    );
    let first: Promise<string> | undefined;
    const ws = await app.injectWS(
      '/api/v1/trace/stream',
      { headers: { 'sec-websocket-protocol': `syncscope, ${proto}` } },
      { onInit: (w) => (first = new Promise((resolve) => w.once('message', (d) => resolve(String(d))))) },
    );
    expect(JSON.parse(await (first as Promise<string>))).toMatchObject({
      kind: 'events',
      events: [{ seq: 1 }],
    });
    ws.terminate();
    expect(chooseProtocol(new Set(['syncscope', proto]))).toBe('syncscope');
    expect(chooseProtocol(new Set([proto]))).toBe(proto);
    expect(chooseProtocol(new Set())).toBe(false);
  });

  it('keeps the Host check: the bind address, loopback and --allowed-host names only', async () => {
    const app = await make(TOKEN, { bind: '10.1.2.3', allowedHosts: ['node1.example', '[fd00::7]'] });
    const get = (host: string) => app.inject({ url: '/api/v1/pods', headers: { host, ...bearer(TOKEN) } });
    for (const host of [
      '10.1.2.3:8080',
      'node1.example:8080',
      'NODE1.example',
      '[fd00::7]:80',
      'localhost:1',
    ]) {
      expect((await get(host)).statusCode, host).toBe(200);
    }
    for (const host of ['evil.example', 'node1.example.evil', '10.1.2.4:8080', '[fd00::8]']) {
      const res = await get(host);
      expect(res.statusCode, host).toBe(403);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    }
    const post = await createPod(app, { ...bearer(TOKEN), host: 'rebound.example:8080' });
    expect(post.statusCode).toBe(403);
    expect(engine.getPods()).toEqual([]);
  });

  it("on 0.0.0.0 answers to the addresses of this machine's interfaces, and not to others", async () => {
    const app = await make(TOKEN, { bind: '0.0.0.0' });
    const own = Object.values(networkInterfaces())
      .flat()
      .map((a) => (a?.family === 'IPv6' ? `[${a.address}]` : a?.address));
    for (const host of own.filter((h) => h !== undefined)) {
      const res = await app.inject({ url: '/healthz', headers: { host: `${host}:8080` } });
      expect(res.statusCode, host).toBe(200);
    }
    const res = await app.inject({ url: '/healthz', headers: { host: '203.0.113.9:8080' } });
    expect(res.statusCode).toBe(403);
  });
});

describe('without a token (loopback)', () => {
  it('answers only to a loopback Host, so a rebinding DNS name is refused', async () => {
    const app = await make();
    for (const host of ['localhost:8080', '127.0.0.1:8080', '[::1]:8080', '127.1.2.3']) {
      expect((await app.inject({ url: '/api/v1/pods', headers: { host } })).statusCode, host).toBe(200);
    }
    for (const host of ['evil.example:8080', 'localhost.evil.example', '10.0.0.1:8080', '[::2]:8080']) {
      const res = await createPod(app, { host });
      expect(res.statusCode, host).toBe(403);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
      expect((await app.inject({ url: '/api/v1/pods', headers: { host } })).statusCode, host).toBe(403);
    }
    expect(engine.getPods()).toEqual([]);
  });

  it('refuses a change from a foreign Origin (a cross-site form post) and allows its own page', async () => {
    const app = await make();
    for (const origin of ['http://evil.example', 'null', 'http://localhost:9999']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/namespaces/default/pods',
        headers: { host: 'localhost:8080', origin, 'content-type': 'text/plain' },
        payload: POD,
      });
      expect(res.statusCode, origin).toBe(403);
    }
    expect(engine.getPods()).toEqual([]);
    const own = await createPod(app, { host: 'localhost:8080', origin: 'http://localhost:8080' });
    expect(own.statusCode).toBe(201);
  });

  it('refuses the WebSocket from a foreign Origin before upgrading', async () => {
    const app = await make();
    await app.ready();
    await expect(
      app.injectWS('/api/v1/trace/stream', {
        headers: { host: 'localhost:8080', origin: 'http://evil.example' },
      }),
    ).rejects.toThrow(/403/);
  });

  it('has no fault injection without the simulated node', async () => {
    const app = await make();
    const res = await app.inject({ method: 'POST', url: '/api/v1/sim/faults', payload: '{"kind":"exit"}' });
    expect(res.statusCode).toBe(404);
  });

  it('never turns a log request into a path outside the pod', async () => {
    const app = await make();
    await createPod(app);
    for (const container of ['../../../etc/passwd', '..', 'app/../../x', '%2e%2e']) {
      const res = await app.inject(
        `/api/v1/namespaces/default/pods/web/log?container=${encodeURIComponent(container)}`,
      );
      expect(res.statusCode, container).toBe(400);
      expect(res.json().message).toBe(`container ${container} is not valid for pod web`);
    }
    const res = await app.inject('/api/v1/namespaces/default/pods/..%2F..%2Fetc/log');
    expect(res.statusCode).toBe(404);
  });
});

describe('tokenEquals', () => {
  it('matches only the same string, whatever the lengths', () => {
    expect(tokenEquals(TOKEN, TOKEN)).toBe(true);
    expect(tokenEquals(`${TOKEN} `, TOKEN)).toBe(false);
    expect(tokenEquals('', TOKEN)).toBe(false);
    expect(tokenEquals('x'.repeat(10_000), TOKEN)).toBe(false);
  });
});

describe('isLoopbackAddress (--host without a token)', () => {
  it('accepts loopback listen addresses and refuses the rest', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
});
