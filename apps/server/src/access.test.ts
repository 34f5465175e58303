/**
 * Every route declares who may use it, the browser hardening headers are on every answer, and what fails
 * before a route runs (bad escapes, over-long segments, a runtime that is down) is a v1 Status.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SimRuntime } from '@syncscope/core';
import { FakeClock } from '@syncscope/core/clock';
import { CriError, GrpcCode } from '@syncscope/core/cri';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { RuntimePod } from '@syncscope/core/kubelet/container/runtime';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import accessPlugin, { isAccess } from './access.ts';
import { createHttpApp } from './http.ts';
import { FakeEngine } from './testing.ts';

const TOKEN = 'a-token-of-enough-length';
let tmp: string;
let clock: FakeClock;
let apps: FastifyInstance[];

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'access-test-'));
  mkdirSync(join(tmp, 'assets'));
  writeFileSync(
    join(tmp, 'index.html'),
    '<!doctype html><title>t</title><script src="assets/a.js"></script>',
  );
  writeFileSync(join(tmp, 'assets', 'a.js'), 'console.log(1)');
  clock = new FakeClock();
  apps = [];
});
afterEach(async () => {
  for (const a of apps) await a.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The whole surface: simulated node controls and the built web app included. */
async function full(engine = new FakeEngine(clock), logger?: Writable) {
  const trace = new TraceRecorder(clock, 100);
  const sim = new SimRuntime({ clock });
  const app = await createHttpApp({
    engine,
    trace,
    clock,
    token: TOKEN,
    webRoot: tmp,
    sim: { runtime: sim, record: (ev) => trace.record(ev) },
    ...(logger ? { logger: { level: 'debug', stream: logger } } : {}),
  });
  app.addHook('onClose', async () => sim.shutdown());
  apps.push(app);
  await app.ready();
  return app;
}

describe('route access declarations', () => {
  it('every registered route declares public, read or write; only health and the web app are public', async () => {
    const app = await full();
    const table = app.accessTable();
    expect(table.length).toBeGreaterThan(40);
    const undeclared = table.filter((r) => !isAccess(r.access));
    expect(undeclared).toEqual([]);
    const pub = table.filter((r) => r.access === 'public').map((r) => `${r.method} ${r.url}`);
    for (const p of pub) expect(p).toMatch(/ (\/healthz|\/livez|\/readyz|\/\*)$/);
    // the web app's files, the health endpoint and the 405 answers on it are there and public
    expect(pub).toEqual(expect.arrayContaining(['GET /*', 'HEAD /*', 'GET /healthz', 'POST /healthz']));
    // every change is a write
    for (const r of table) {
      if (['POST', 'PUT', 'DELETE', 'PATCH'].includes(r.method) && r.access !== 'write') {
        // only the 405 answers, which change nothing
        const res = await app.inject({ method: r.method as 'POST', url: r.url.replace(/:\w+/g, 'x') });
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(r.access === 'public' ? 405 : 401);
      }
    }
  });

  it('refuses to start with a route that declares nothing', async () => {
    const app = Fastify();
    apps.push(app);
    await app.register(accessPlugin, {});
    app.get('/declared', { config: { access: 'read' } }, async () => 'ok');
    app.get('/forgotten', async () => 'oops');
    await expect(app.ready()).rejects.toThrow(/GET \/forgotten/);
  });
});

describe('browser hardening headers', () => {
  it('sends a strict CSP, no framing, nosniff and no referrer on the page, the API and refusals', async () => {
    const app = await full();
    for (const [url, code] of [
      ['/', 200],
      ['/assets/a.js', 200],
      ['/healthz', 200],
      ['/api/v1/pods', 401],
      ['/api/v1/nothing', 404],
    ] as const) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(code);
      const csp = String(res.headers['content-security-policy']);
      expect(csp, url).toContain("default-src 'self'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).not.toContain('unsafe-inline');
      expect(csp, url).not.toContain('upgrade-insecure-requests');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });
});

describe('errors before a route runs', () => {
  it('answers a bad percent-escape with a 400 Status', async () => {
    const app = await full();
    for (const url of ['/api/v1/%zz', '/api/v1/namespaces/default/pods/%E0%A4%A']) {
      const res = await app.inject({ url, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({
        apiVersion: 'v1',
        kind: 'Status',
        code: 400,
        reason: 'BadRequest',
      });
    }
  });

  it('answers an over-long path segment with a 414 Status', async () => {
    const app = await full();
    const res = await app.inject({
      method: 'DELETE',
      url: `/api/v1/namespaces/default/pods/${'a'.repeat(5000)}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toMatchObject({ kind: 'Status', code: 414, reason: 'RequestURITooLong' });
  });

  it('answers GET /api/v1/runtime/pods during a runtime outage with 503, logged without a stack', async () => {
    class DownEngine extends FakeEngine {
      async listRuntimePods(): Promise<RuntimePod[]> {
        throw new CriError('ListPodSandbox', GrpcCode.UNAVAILABLE, 'connection refused');
      }
    }
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const app = await full(new DownEngine(clock), sink);
    const res = await app.inject({
      url: '/api/v1/runtime/pods',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable' });
    expect(res.json().message).toContain('connection refused');
    const logged = lines.map((l) => JSON.parse(l) as { level: number; err?: unknown });
    expect(logged.some((l) => l.level === 40)).toBe(true);
    expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.join('\n')).not.toContain('"stack"');
  });
});
