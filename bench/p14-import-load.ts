/**
 * P14 import load: what a big import costs the server while it is uploaded and parsed. The HTTP app
 * (createHttpApp: the real routes, the imports store under a temp dir) over an engine stand-in; /healthz is
 * asked again 2 ms after each answer, first with nothing else going on (the idle floor, in the same run), then
 * while a 64 MiB kubelet log (the sample logs repeated and re-stamped, bench/lib/kubelet-log-gen.ts, cut at the
 * upload limit) is POSTed to /api/v1/imports and parsed (on the store's parse thread). Reported: /healthz p99
 * during the import against the idle p99 (target ≤ 100 ms), and the process's RSS growth over its RSS before
 * the import (the parse thread is in the process; target ≤ 100 MB), with the import's time and MB/s beside.
 * The client (the upload and the /healthz asker) runs in the same process as the server: its own work is
 * small (a file streamed to a socket) and counted in the figures. Smoke: a 2 MB log, 1 s idle.
 */
import { createReadStream, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '@syncscope/server/http';
import { FakeEngine } from '@syncscope/server/testing';
import { max, median, p99 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { writeBigLog } from './lib/kubelet-log-gen.ts';
import { type Row, row } from './lib/table.ts';

/** The server's upload limit for an import (apps/server/src/imports/store.ts MAX_IMPORT_BYTES). */
const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
const MB = 1e6;

/** Asks GET /healthz again 2 ms after each answer until stop() resolves; the answers' latencies in ms. */
function askHealthz(base: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.text();
      latencies.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

/** POSTs the file as an import; resolves with the status and the answer's text. */
function upload(base: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/v1/imports?name=p14.log`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-length': statSync(path).size },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const bytes = o.smoke ? 2 * 1024 * 1024 : MAX_IMPORT_BYTES;
  const idleMs = o.smoke ? 1_000 : 5_000;
  const dir = mkdtempSync(join(tmpdir(), 'bench-p14-'));
  const logPath = join(dir, 'kubelet.log');
  await writeBigLog(logPath, bytes);
  truncateSync(logPath, bytes);
  const clock = new RealClock();
  const app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace: new TraceRecorder(clock),
    clock,
    importsDir: join(dir, 'imports'),
  });
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });

    // warm up (the first requests pay for the client's connection and the routes' first compile)
    for (let i = 0; i < 50; i++) await (await fetch(`${base}/healthz`)).text();
    // the idle floor, in the same run
    const idle = askHealthz(base);
    await new Promise((r) => setTimeout(r, idleMs));
    const idleLat = await idle.stop();

    global.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let rssMax = rssBefore;
    const rssTimer = setInterval(() => {
      rssMax = Math.max(rssMax, process.memoryUsage.rss());
    }, 20);
    const busy = askHealthz(base);
    const t0 = performance.now();
    const res = await upload(base, logPath);
    const importMs = performance.now() - t0;
    const busyLat = await busy.stop();
    clearInterval(rssTimer);
    rssMax = Math.max(rssMax, process.memoryUsage.rss());
    if (res.status !== 201) throw new Error(`the import answered ${res.status}: ${res.text.slice(0, 300)}`);
    const events = (JSON.parse(res.text) as { summary: { events: number } }).summary.events;
    o.log(
      `import of ${(bytes / MB).toFixed(1)} MB: ${Math.round(importMs)} ms, ${events} events; /healthz ` +
        `${busyLat.length} answers during it (max ${Math.round(max(busyLat))} ms), ${idleLat.length} idle`,
    );
    const size = `${Math.round(bytes / (1024 * 1024))} MiB`;
    return [
      row({
        bench: 'P14',
        metric: `/healthz p99 while a ${size} kubelet log is uploaded and parsed (POST /api/v1/imports), vs idle`,
        value: p99(busyLat),
        floor: p99(idleLat),
        unit: 'ms',
        target: { op: '<=', bound: 100, on: 'value' },
        note: `median ${median(busyLat).toFixed(1)} ms, max ${max(busyLat).toFixed(1)} ms, ${busyLat.length} answers; idle median ${median(idleLat).toFixed(1)} ms`,
      }),
      row({
        bench: 'P14',
        metric: `server RSS growth during the ${size} import (its parse thread included)`,
        value: (rssMax - rssBefore) / MB,
        unit: 'MB',
        target: { op: '<=', bound: 100, on: 'value' },
        note: `${Math.round(rssBefore / MB)} MB before, ${Math.round(rssMax / MB)} MB at most`,
      }),
      row({
        bench: 'P14',
        metric: `the ${size} import: upload, parse and fsync to its 201`,
        value: importMs,
        unit: 'ms',
        note: `${(bytes / MB / (importMs / 1000)).toFixed(1)} MB/s, ${events} events`,
      }),
    ];
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
