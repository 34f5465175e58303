/**
 * P14 import load: what a big import costs the server while it is uploaded and parsed. The HTTP app
 * (createHttpApp: the real routes, the imports store under a temp dir) over an engine stand-in; /healthz is
 * asked again 2 ms after each answer, first with nothing else going on (the idle floor, in the same run), then
 * while a 64 MiB kubelet log (the sample logs repeated and re-stamped, bench/lib/kubelet-log-gen.ts, cut at the
 * upload limit) is POSTed to /api/v1/imports and parsed (on the store's parse thread). Reported: /healthz p99
 * during the import against the idle p99 (target ≤ 100 ms), and the process's RSS growth over its RSS before
 * the import (the parse thread is in the process; target ≤ 100 MB), with the import's time and MB/s beside.
 * The upload runs in a process of its own, as a real client's would (its file reads and socket writes are not
 * the server's); the /healthz asker runs in the server's process, its work small and counted in the figures.
 * Smoke: a 2 MB log, 1 s idle.
 */
import { max, median, p99 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { startImportBench, uploadImportFromChild } from './lib/import-bench.ts';
import { type Row, row } from './lib/table.ts';

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

export async function run(o: BenchOptions): Promise<Row[]> {
  const idleMs = o.smoke ? 1_000 : 5_000;
  const { base, logPath, bytes, close } = await startImportBench('bench-p14-', o.smoke);
  try {
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
    const res = await uploadImportFromChild(base, logPath, 'p14.log');
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
    await close();
  }
}
