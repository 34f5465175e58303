/**
 * The attack suite: a token-guarded server on a real socket, and every registered route tried in every
 * spelling a router might decode to it (percent-escaped letters, absolute-form targets, upper case,
 * doubled and trailing slashes, `;` parameters, `%2F`, dot segments) with every method and as a WebSocket
 * upgrade, written byte for byte with node:net so nothing normalises them on the way.
 *
 * Without the token no guarded handler may answer: nothing 2xx but the web app's index.html (what any
 * unknown page path gets), no 101, and none of the secrets planted in the pod spec, the trace and the log.
 * With the token the plain spellings work. Nothing in all this is logged at error level or with a stack.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SimRuntime } from '@syncscope/core';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WS_BEARER_PROTOCOL_PREFIX } from './access.ts';
import { createHttpApp } from './http.ts';
import { addRunningPod, FakeEngine, testPod, writeContainerLog } from './testing.ts';

const TOKEN = 'attack-suite-token-0123456789';
const SECRET = 'DB_PASSWORD_VALUE_4f1c';
const INDEX = '<!doctype html><title>syncscope</title><p>the page</p>';
const UID = '0b4f1f0e-1111-4222-8333-444455556666';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

let tmp: string;
let app: FastifyInstance;
let sim: SimRuntime;
let port: number;
const logLines: string[] = [];

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/**
 * Sends `text` as is on a fresh connection and resolves with the answer once the server closes it; with
 * `upgrade`, as soon as the head is in (a 101 keeps the socket open), or, given `after`, writes those bytes
 * behind a 101 and waits for the server to close.
 */
function raw(text: string | Buffer, opts: { upgrade?: boolean; after?: Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    let sentAfter = false;
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no answer to ${String(text).slice(0, 120)}`));
    }, 10_000);
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const all = Buffer.concat(chunks).toString('latin1');
      const end = all.indexOf('\r\n\r\n');
      const head = end < 0 ? all : all.slice(0, end);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: end < 0 ? '' : all.slice(end + 4),
      });
    };
    sock.on('data', (d) => {
      chunks.push(d);
      if (!opts.upgrade || sentAfter) return;
      const all = Buffer.concat(chunks).toString('latin1');
      if (!all.includes('\r\n\r\n')) return;
      if (opts.after && all.startsWith('HTTP/1.1 101')) {
        sentAfter = true;
        sock.write(opts.after);
        return;
      }
      sock.destroy();
      done();
    });
    sock.on('close', done);
    sock.on('error', () => undefined);
    sock.write(text);
  });
}

const host = () => `127.0.0.1:${port}`;

function request(method: string, target: string, headers: Record<string, string> = {}): string {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: ${host()}`, 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) {
    lines.push('Content-Type: application/json', 'Content-Length: 2');
    return `${lines.join('\r\n')}\r\n\r\n{}`;
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function upgrade(target: string, headers: Record<string, string> = {}): string {
  const lines = [
    `GET ${target} HTTP/1.1`,
    `Host: ${host()}`,
    'Connection: Upgrade',
    'Upgrade: websocket',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

const pct = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Every odd way to write `path` that a lenient router might still match to its route. */
export function spellings(path: string): string[] {
  const segs = path.split('/').slice(1);
  const last = segs.length - 1;
  const out = new Set<string>([path]);
  segs.forEach((s, i) => {
    const at = (v: string) => `/${segs.map((x, j) => (j === i ? v : x)).join('/')}`;
    out.add(at(s.replace(/[a-z]/, pct))); // one letter escaped
    out.add(at(s.replace(/[a-z]/g, (c) => pct(c).toLowerCase()))); // every letter, lower-case hex
    out.add(at(s.toUpperCase()));
    out.add(at(`${s};x=1`));
    if (i === last) out.add(at(`${s}%00`));
  });
  out.add(`/${segs.join('/').replace(/[a-z]/g, pct)}`);
  out.add(path.toUpperCase());
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`/${path}`);
  out.add(path.replace(/\//g, '//'));
  out.add(`/${segs.join('%2F')}`);
  out.add(`/${segs.join('%2f')}`);
  out.add(`/${segs.slice(0, last).join('/')}/x/../${segs[last]}`);
  out.add(`/./${segs.join('/')}`);
  out.add(`/${segs.slice(0, last).join('/')}/x/%2e%2e/${segs[last]}`);
  out.add(`${path};`);
  out.add(`${path}?`);
  out.add(`${path}#x`);
  out.add(`${path}%23x`);
  out.add(`${path}%3Fsince=0`);
  out.add(`http://${'127.0.0.1'}:${port}${path}`);
  out.add(`http://evil.example${path}`);
  out.add(`HTTP://127.0.0.1${path.toUpperCase()}`);
  out.add(`//evil.example${path}`);
  return [...out];
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'attack-test-'));
  const web = join(tmp, 'web');
  mkdirSync(web);
  writeFileSync(join(web, 'index.html'), INDEX);
  const logs = join(tmp, 'pods');
  writeContainerLog(logs, 'web', UID, `2026-01-01T00:00:00Z stdout F ${SECRET}\n`);
  const clock = new FakeClock();
  const engine = new FakeEngine(clock);
  const container = { name: 'app', image: 'busybox', env: [{ name: 'DB_PASSWORD', value: SECRET }] };
  addRunningPod(engine, testPod('web', UID, [container]), '2026-01-01T00:00:00Z');
  const trace = new TraceRecorder(clock, 1000);
  trace.record({
    type: 'config.update',
    op: 'ADD',
    source: 'api',
    podUID: UID,
    pod: `default/web ${SECRET}`,
  });
  sim = new SimRuntime({ clock });
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  app = await createHttpApp({
    engine,
    trace,
    clock,
    token: TOKEN,
    webRoot: web,
    podLogsDirectory: logs,
    sim: { runtime: sim, record: (ev) => trace.record(ev) },
    logger: { level: 'debug', stream: sink },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
}, 60_000);

afterAll(async () => {
  await app?.close();
  sim?.shutdown();
  rmSync(tmp, { recursive: true, force: true });
});

/** The guarded routes with their parameters filled in: the paths a request must never reach unasked. */
function guardedPaths(): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of app.accessTable()) {
    if (r.access === 'public' || r.url.includes('*')) continue;
    const path = r.url.replace(':ns', 'default').replace(':name', 'web').replace(':check', 'ping');
    const key = `${r.method} ${path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path });
  }
  return out;
}

/** What a request without the token may get: a refusal, a 404/405/400, or the web app's page. */
function expectNothingGuarded(res: RawResponse, what: string) {
  expect(res.status, what).not.toBe(101);
  expect(res.status, what).toBeGreaterThan(0);
  if (res.status >= 200 && res.status < 300) {
    const page = what.startsWith('HEAD ') ? '' : INDEX;
    expect(res.body, `${what} answered ${res.status}`).toBe(page);
  }
  expect(res.body, what).not.toContain(SECRET);
  expect(res.body, what).not.toContain('DB_PASSWORD');
}

describe('without the token', () => {
  it('no spelling of any guarded route with any method reaches its handler', async () => {
    const paths = [...new Set(guardedPaths().map((p) => p.path))];
    expect(paths).toEqual(
      expect.arrayContaining(['/api/v1/trace', '/api/v1/trace/stream', '/api/v1/pods', '/metrics']),
    );
    let tried = 0;
    for (const path of paths) {
      for (const target of spellings(path)) {
        for (const method of METHODS) {
          const res = await raw(request(method, target));
          expectNothingGuarded(res, `${method} ${target}`);
          tried++;
        }
        const ws = await raw(upgrade(target), { upgrade: true });
        expectNothingGuarded(ws, `upgrade ${target}`);
        const wrong = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from('not-the-token').toString('base64url')}`;
        const wsWrong = await raw(upgrade(`${target}?token=${TOKEN}`, { 'Sec-WebSocket-Protocol': wrong }), {
          upgrade: true,
        });
        expectNothingGuarded(wsWrong, `upgrade ${target} with a wrong token`);
        tried += 2;
      }
    }
    expect(tried).toBeGreaterThan(2000);
  }, 240_000);

  it('a token in the query string or a wrong one opens nothing', async () => {
    for (const { method, path } of guardedPaths()) {
      for (const headers of [
        { Authorization: 'Bearer wrong-token-wrong-token' },
        { Authorization: `Basic ${TOKEN}` },
      ]) {
        const res = await raw(request(method, `${path}?token=${TOKEN}`, headers));
        expect(res.status, `${method} ${path}`).toBe(401);
        if (method !== 'HEAD') expect(res.body).toContain('"kind":"Status"');
      }
    }
  });
});

describe('with the token', () => {
  it('the plain spellings work, the stream included', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    for (const { method, path } of guardedPaths()) {
      if (method !== 'GET') continue;
      // a legacy watch path streams until its timeout: a short one, so the answer ends
      const res = await raw(
        request('GET', path.includes('/watch/') ? `${path}?timeoutSeconds=1` : path, auth),
      );
      // a plain GET of the stream, exec, attach or portforward says to upgrade; a 405 route answers what the path allows
      // an import that does not exist (404) or a line not asked for (400): the imports handlers' own Status
      // an event or node named like the pod: there is none; ephemeral containers are not served (404 Status)
      const want = /\/(stream|exec|attach)$/.test(path)
        ? [400]
        : path.endsWith('/portforward')
          ? [400, 501] // 501: the runtime's streaming server is not reached
          : path.includes('/watch/')
            ? [200] // a watch of a name streams whether or not the object exists, as the apiserver's
            : path.includes('/imports/')
              ? [200, 400, 404, 405]
              : /\/(events|nodes)\/web$|\/ephemeralcontainers$/.test(path)
                ? [404]
                : [200, 405];
      expect(want, `${path}: ${res.status}`).toContain(res.status);
      if (res.status === 405) expect(res.head).toMatch(/\r\nallow: /i);
    }
    const proto = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from(TOKEN).toString('base64url')}`;
    const ws = await raw(
      upgrade('/api/v1/trace/stream', { 'Sec-WebSocket-Protocol': `syncscope, ${proto}` }),
      {
        upgrade: true,
      },
    );
    expect(ws.status).toBe(101);
    expect(ws.head).toMatch(/sec-websocket-protocol: syncscope/i);
    expect(ws.head).not.toContain(proto);
    const post = await raw(request('POST', '/api/v1/sim/faults', auth));
    expect(post.status).toBe(400); // the body {} names no fault kind: the handler was reached
  });
});

describe('malformed input before any route', () => {
  it('answers headers over the limit with a 431 Status, and a broken request line with a 400 Status', async () => {
    const big = await raw(request('GET', '/api/v1/pods', { 'X-Big': 'a'.repeat(64 * 1024) }));
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body)).toMatchObject({
      kind: 'Status',
      code: 431,
      reason: 'RequestHeaderFieldsTooLarge',
    });
    const broken = await raw('GET /api/v1/pods HTTP/1.1 extra\r\nHost: x\r\n\r\n');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.body)).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    const body = 'x'.repeat(2 * 1024 * 1024);
    const tooLarge = await raw(
      `POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n` +
        `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/yaml\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toMatchObject({
      kind: 'Status',
      code: 413,
      reason: 'RequestEntityTooLarge',
    });
    const badEscape = await raw(request('GET', '/api/v1/%zz', { Authorization: `Bearer ${TOKEN}` }));
    expect(badEscape.status).toBe(400);
    expect(JSON.parse(badEscape.body)).toMatchObject({ kind: 'Status', code: 400 });
  });

  it('a malformed WebSocket frame closes the socket and is logged without a stack', async () => {
    const proto = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from(TOKEN).toString('base64url')}`;
    const before = logLines.length;
    // FIN + reserved opcode 0x3, masked, empty payload
    const badFrame = Buffer.from([0x83, 0x80, 1, 2, 3, 4]);
    const res = await raw(upgrade('/api/v1/trace/stream', { 'Sec-WebSocket-Protocol': proto }), {
      upgrade: true,
      after: badFrame,
    });
    expect(res.status).toBe(101);
    const deadline = Date.now() + 5000;
    while (!logLines.slice(before).some((l) => l.includes('WS_ERR_')) && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
    }
    const entries = logLines.slice(before).map((l) => JSON.parse(l) as { level: number; code?: string });
    expect(entries.some((e) => e.level === 30 && e.code?.startsWith('WS_ERR_'))).toBe(true);
  });

  it('nothing in the whole attack was logged at error level or with a stack', () => {
    const entries = logLines.map((l) => JSON.parse(l) as { level: number });
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((e) => e.level >= 50)).toEqual([]);
    expect(logLines.join('\n')).not.toContain('"stack"');
  });
});
