/**
 * Observe mode refuses every write, however its target is spelled: every route that takes a write, in the
 * attack suite's spellings (percent-escaped letters, absolute-form targets, case, doubled and trailing
 * slashes, dot segments, `;` parameters), written byte for byte over node:net on the plain port and over
 * TLS on the https port, with the token. None may get past the guard to a handler or the engine.
 */
import type { Server } from 'node:https';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeTls, ensureServingCert, listenTls, type ServingCert } from '../kube-api/kube-tls.ts';
import type { ObservedApp } from './app.ts';
import { type BareObserver, observeWithoutRuntime } from './observe-testing.ts';
import { OBSERVE_REFUSAL } from './observer.ts';

const TOKEN = 'observe-guard-token-0123456789';
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
const POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
});

let bare: BareObserver;
let observed: ObservedApp;
let tls: Server;
let cert: ServingCert;
let plainPort: number;
let tlsPort: number;
/** Requests that got past the onRequest hooks (the access check, then the observe guard). */
const passed: string[] = [];
/** Calls of the engine's writes. */
const writes: string[] = [];

beforeAll(async () => {
  bare = await observeWithoutRuntime('observe-guard-', TOKEN);
  observed = bare.observed;
  observed.app.addHook('preParsing', async (req) => {
    if (!req.is404 && !READS.has(req.method)) passed.push(`${req.method} ${req.url}`);
  });
  for (const m of ['addPod', 'updatePod', 'deletePod'] as const) {
    const real = observed.observer[m].bind(observed.observer);
    observed.observer[m] = () => {
      writes.push(m);
      real();
    };
  }
  await observed.app.listen({ port: 0, host: '127.0.0.1' });
  plainPort = (observed.app.server.address() as { port: number }).port;
  cert = ensureServingCert(bare.tmp, '127.0.0.1');
  tls = await listenTls(observed.app, cert, '127.0.0.1', 0);
  tlsPort = (tls.address() as { port: number }).port;
}, 60_000);

afterAll(async () => {
  if (tls) await closeTls(tls);
  await bare?.close();
});

const pct = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Ways to write `path` that a lenient router might still match to its route (as attack.int.test.ts). */
function spellings(path: string, authority: string): string[] {
  const segs = path.split('/').slice(1);
  const last = segs.length - 1;
  const out = new Set<string>([path]);
  segs.forEach((s, i) => {
    const at = (v: string) => `/${segs.map((x, j) => (j === i ? v : x)).join('/')}`;
    out.add(at(s.replace(/[a-z]/, pct)));
    out.add(at(s.replace(/[a-z]/g, (c) => pct(c).toLowerCase())));
    out.add(at(s.toUpperCase()));
    out.add(at(`${s};x=1`));
    out.add(at(`${s}.`));
  });
  out.add(`/${segs.join('/').replace(/[a-z]/g, pct)}`);
  out.add(`${path}/`);
  out.add(`/${path}`);
  out.add(path.replace(/\//g, '//'));
  out.add(`/${segs.join('%2F')}`);
  out.add(`/${segs.slice(0, last).join('/')}/x/../${segs[last]}`);
  out.add(`/${segs.slice(0, last).join('/')}/x/%2e%2e/${segs[last]}`);
  out.add(`/./${segs.join('/')}`);
  out.add(`${path}?`);
  out.add(`${path}%3Fx=1`);
  out.add(`http://${authority}${path}`);
  out.add(`https://${authority}${path}`);
  out.add(`http://evil.example${path}`);
  out.add(`HTTP://${authority}${path}`);
  return [...out];
}

/** Sends `method target` on a fresh connection (TLS or not); resolves with the status and body. */
function send(
  tlsOn: boolean,
  method: string,
  target: string,
  body: string,
): Promise<{ status: number; body: string }> {
  const port = tlsOn ? tlsPort : plainPort;
  const head = [
    `${method} ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${TOKEN}`,
    'Connection: close',
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  const text = `${head.join('\r\n')}\r\n\r\n${body}`;
  return new Promise((resolve, reject) => {
    const sock = tlsOn
      ? tlsConnect({ host: '127.0.0.1', port, ca: cert.cert }, () => sock.write(text))
      : connect(port, '127.0.0.1', () => sock.write(text));
    const chunks: Buffer[] = [];
    sock.on('data', (d: Buffer) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      const end = all.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(all)?.[1] ?? 0),
        body: end < 0 ? '' : all.slice(end + 4),
      });
    });
  });
}

/**
 * The writes to try: every route that declares itself a write, and a POST to every other path (what the
 * guard decides on is the method and the matched route; the other methods on a read path add nothing).
 * Parameters filled in.
 */
function writeRoutes(): { method: string; path: string; declared: boolean }[] {
  const seen = new Set<string>();
  // the access reviews only answer (access-review.ts): observe mode answers them
  const table = observed.app.accessTable().filter((r) => !r.url.includes('*') && !r.url.includes('review'));
  const declared = table.filter((r) => r.access === 'write').map((r) => ({ ...r, declared: true }));
  const others = table.map((r) => ({ method: 'POST', url: r.url, declared: false }));
  return [...declared, ...others].flatMap((r) => {
    const path = r.url.replace(/:[a-zA-Z]+/g, (p) => (p === ':ns' ? 'default' : 'web'));
    const key = `${r.method} ${path}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ method: r.method, path, declared: r.declared }];
  });
}

it('refuses every write in every spelling on both ports; nothing gets past the guard', async () => {
  const routes = writeRoutes();
  expect(routes).toEqual(
    expect.arrayContaining([
      { method: 'POST', path: '/api/v1/namespaces/default/pods', declared: true },
      { method: 'DELETE', path: '/api/v1/namespaces/default/pods/web', declared: true },
      { method: 'POST', path: '/api/v1/namespaces/default/pods/web/log', declared: false },
    ]),
  );
  // the https port runs the same routing behind TLS: there the routes that declare a write suffice
  const cases: { tlsOn: boolean; method: string; path: string; target: string }[] = [];
  for (const tlsOn of [false, true]) {
    const authority = `127.0.0.1:${tlsOn ? tlsPort : plainPort}`;
    for (const { method, path, declared } of routes) {
      if (tlsOn && !declared) continue;
      for (const target of spellings(path, authority)) cases.push({ tlsOn, method, path, target });
    }
  }
  let tried = 0;
  const BATCH = 16;
  for (let i = 0; i < cases.length; i += BATCH) {
    const batch = cases.slice(i, i + BATCH);
    const answers = await Promise.all(
      batch.map((c) => send(c.tlsOn, c.method, c.target, c.method === 'POST' ? POD : '{}')),
    );
    batch.forEach(({ tlsOn, method, path, target }, j) => {
      const res = answers[j] as { status: number; body: string };
      const what = `${tlsOn ? 'https' : 'http'} ${method} ${target}`;
      tried++;
      // refused by the guard, or by the router (no route: a 404 Status, or a malformed target's 400)
      expect([400, 403, 404], what).toContain(res.status);
      if (res.status === 403) expect(JSON.parse(res.body).message, what).toBe(OBSERVE_REFUSAL);
      if (target === path) expect(res.status, what).toBe(403);
    });
  }
  expect(tried).toBe(cases.length);
  expect(tried).toBeGreaterThan(500);
  expect(passed).toEqual([]);
  expect(writes).toEqual([]);
  expect(observed.cri.refused.size).toBe(0);
});
