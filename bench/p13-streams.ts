/**
 * P13 streams: what clients that hold a connection and take nothing cost everyone else. The HTTP app
 * (createHttpApp: the real routes and limits) on its plain port and on the https (kubectl) port
 * (listenTls), over an engine stand-in with one running pod whose container writes its log fast (a child
 * process appends CRI records at CHATTY_MB_PER_S). A probe asks GET /healthz over a fresh TLS connection,
 * one request after another, and takes the p99, in three phases of one run:
 *   - baseline: nothing held;
 *   - (d) 256 idle TCP sockets on the https port that never send a ClientHello;
 *   - (e) 10 `kubectl logs -f` of the chatty pod on the plain port whose clients read nothing.
 * Also the process's RSS growth over (d) and over (e) (max sampled − before; the server and the clients share
 * the process). Targets: p99 ≤ 100 ms in each phase; RSS growth ≤ 100 MB in each (a follower must stop
 * reading the file when its client stops reading).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '@syncscope/server/http';
import { closeTls, ensureServingCert, listenTls } from '@syncscope/server/kube-api/kube-tls';
import { addRunningPod, FakeEngine, testPod, writeContainerLog } from '@syncscope/server/testing';
import { median, p99 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { type Row, row } from './lib/table.ts';

const MB = 1024 * 1024;
const UID = 'uid-chatty';
const IDLE_SOCKETS = 256;
const FOLLOWERS = 10;
const CHATTY_MB_PER_S = 20;
const PROBE_TIMEOUT_MS = 5_000;

/** A container that writes `mbPerS` MiB/s of CRI records to `file`, in a process of its own. */
function chattyWriter(file: string, mbPerS: number): ChildProcess {
  const script = `
    const fs = require('node:fs');
    const line = '2026-01-01T12:00:00.000000000Z stdout F ' + 'chatty '.repeat(14) + '\\n';
    const tick = Math.max(1, Math.round(${mbPerS * MB} / 100 / line.length));
    const chunk = line.repeat(tick);
    const fd = fs.openSync(${JSON.stringify(file)}, 'a');
    setInterval(() => fs.writeSync(fd, chunk), 10);`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

/**
 * GET /healthz on a fresh TLS connection, one after another for `ms`: each round trip in ms; a request
 * that fails or takes over PROBE_TIMEOUT_MS counts as Infinity (the phase then misses its target).
 */
async function probe(port: number, ca: string, ms: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    const ok = await new Promise<boolean>((resolve) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: '/healthz', ca, agent: false, timeout: PROBE_TIMEOUT_MS },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    });
    out.push(ok ? performance.now() - t0 : Number.POSITIVE_INFINITY);
  }
  return out;
}

/** Samples this process's RSS every 100 ms until stop(), which gives the largest growth seen, in MB. */
function rssWatch(): { stop(): number } {
  const before = process.memoryUsage().rss;
  let most = before;
  const sampler = setInterval(() => {
    most = Math.max(most, process.memoryUsage().rss);
  }, 100);
  return {
    stop() {
      clearInterval(sampler);
      return (Math.max(most, process.memoryUsage().rss) - before) / MB;
    },
  };
}

/** `p50 …; n of m failed` for a row's note. */
function describe(xs: number[]): string {
  const failed = xs.filter((x) => !Number.isFinite(x)).length;
  return `p50 ${median(xs).toFixed(1)} ms, ${xs.length} requests${failed ? `, ${failed} failed` : ''}`;
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const ms = o.smoke ? 1_000 : 5_000;
  const tmp = mkdtempSync(join(tmpdir(), 'bench-p13-'));
  const logFile = writeContainerLog(join(tmp, 'pods'), 'chatty', UID);
  const clock = new RealClock();
  const engine = new FakeEngine(clock);
  addRunningPod(engine, testPod('chatty', UID), '2026-01-01T12:00:00Z');
  const app = await createHttpApp({
    engine,
    trace: new TraceRecorder(clock),
    clock,
    podLogsDirectory: join(tmp, 'pods'),
  });
  const cert = ensureServingCert(tmp, '127.0.0.1');
  const held: Socket[] = [];
  const follows: ClientRequest[] = [];
  let writer: ChildProcess | undefined;
  const rows: Row[] = [];
  await app.listen({ port: 0, host: '127.0.0.1' });
  const tls = await listenTls(app, cert, '127.0.0.1', 0);
  try {
    const plainPort = (app.server.address() as { port: number }).port;
    const tlsPort = (tls.address() as { port: number }).port;

    await probe(tlsPort, cert.cert, 500); // warm-up: JIT, TLS session setup
    const baseMs = await probe(tlsPort, cert.cert, ms);
    const base = p99(baseMs);
    o.log(`baseline /healthz p99 ${base.toFixed(1)} ms (${describe(baseMs)})`);

    // (d) idle sockets on the https port: no ClientHello
    const idleRss = rssWatch();
    let closed = 0;
    const idleSockets = o.smoke ? 32 : IDLE_SOCKETS;
    for (let i = 0; i < idleSockets; i++) {
      const s = connect(tlsPort, '127.0.0.1');
      s.on('error', () => undefined);
      s.on('close', () => closed++);
      held.push(s);
    }
    const idleMs = await probe(tlsPort, cert.cert, ms);
    const idle = p99(idleMs);
    const idleGrowth = idleRss.stop();
    const closedByServer = closed;
    o.log(
      `(d) ${idleSockets} idle TLS sockets (${closedByServer} closed by the server): p99 ${idle.toFixed(1)} ms (${describe(idleMs)})`,
    );
    for (const s of held.splice(0)) s.destroy();

    // (e) paused followers of a chatty pod
    const pausedRss = rssWatch();
    for (let i = 0; i < FOLLOWERS; i++) {
      // the response is never read (paused, not dumped as a response nobody listens for would be): once
      // its buffer is full the client's socket stops reading
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: plainPort,
          path: '/api/v1/namespaces/default/pods/chatty/log?follow=true',
          agent: false,
        },
        (res) => res.pause(),
      );
      req.on('error', () => undefined);
      req.end();
      follows.push(req);
    }
    // the container starts writing once they follow (their first answer, the file so far, is empty): what
    // is measured is holding them, not reading a long log's tail for each
    writer = chattyWriter(logFile, o.smoke ? 5 : CHATTY_MB_PER_S);
    const pausedMs = await probe(tlsPort, cert.cert, ms * 2);
    const paused = p99(pausedMs);
    const growth = pausedRss.stop();
    o.log(
      `(e) ${FOLLOWERS} paused followers: p99 ${paused.toFixed(1)} ms (${describe(pausedMs)}), RSS +${growth.toFixed(0)} MB`,
    );

    const mbps = o.smoke ? 5 : CHATTY_MB_PER_S;
    rows.push(
      row({
        bench: 'P13',
        metric: '/healthz over TLS, nothing held (baseline), p99',
        value: base,
        unit: 'ms',
        target: { op: '<=', bound: 100, on: 'value' },
        note: describe(baseMs),
      }),
      row({
        bench: 'P13',
        metric: `/healthz over TLS, (d) ${idleSockets} idle TLS sockets held, p99`,
        value: idle,
        unit: 'ms',
        floor: base,
        target: { op: '<=', bound: 100, on: 'value' },
        note: `${describe(idleMs)}; ${closedByServer} idle sockets closed by the server to make room`,
      }),
      row({
        bench: 'P13',
        metric: `/healthz over TLS, (e) ${FOLLOWERS} paused log followers, pod writing ${mbps} MiB/s, p99`,
        value: paused,
        unit: 'ms',
        floor: base,
        target: { op: '<=', bound: 100, on: 'value' },
        note: describe(pausedMs),
      }),
      row({
        bench: 'P13',
        metric: `RSS growth over (d), ${ms / 1000} s`,
        value: idleGrowth,
        unit: 'MB',
        target: { op: '<=', bound: 100, on: 'value' },
      }),
      row({
        bench: 'P13',
        metric: `RSS growth over (e), ${(ms * 2) / 1000} s`,
        value: growth,
        unit: 'MB',
        target: { op: '<=', bound: 100, on: 'value' },
      }),
    );
  } finally {
    writer?.kill('SIGKILL');
    for (const s of held) s.destroy();
    for (const r of follows) r.destroy();
    await closeTls(tls);
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}
