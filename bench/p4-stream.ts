/**
 * P4 streaming: the server (buildApp on an idle simulated node) with 5 WebSocket clients on
 * /api/v1/trace/stream, read by a separate process; trace events recorded at an offered rate for a while.
 * Delivered events per second per client (target ≥ 20k/s) and p99 delivery latency, record → client parse
 * (target ≤ 100 ms). Then the server's memory with one client that never reads.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuiltApp, buildApp } from '@syncscope/server';
import { min } from '@syncscope/test/support/stats';
import type { ClientsReport } from '@syncscope/test/support/stream-clients';
import type { BenchOptions } from './lib/bench.ts';
import { jsonLineOf, spawnTsx } from './lib/spawn.ts';
import { podEvent, synthPods } from './lib/synthetic.ts';
import { type Row, row } from './lib/table.ts';

const MB = 2 ** 20;

/** Records events at `rate`/s for `ms`, in small bursts off the event loop; returns the last seq. */
async function produce(built: BuiltApp, rate: number, ms: number, onTick?: () => void): Promise<number> {
  const pods = synthPods(200);
  const t0 = performance.now();
  let sent = 0;
  for (;;) {
    const elapsed = performance.now() - t0;
    if (elapsed >= ms) break;
    const due = Math.min(Math.floor((rate * elapsed) / 1000), sent + 2000);
    for (; sent < due; sent++)
      built.trace.record(podEvent(pods[sent % pods.length] as (typeof pods)[0], sent));
    onTick?.();
    await new Promise((r) => setTimeout(r, 1));
  }
  return built.trace.next - 1;
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const clients = 5;
  const rate = 25_000;
  const ms = o.smoke ? 1_000 : 10_000;
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-stream-'));
  const built = await buildApp({ dataDir: dir, examples: false, logger: false });
  const rows: Row[] = [];
  try {
    await built.app.listen({ port: 0, host: '127.0.0.1' });
    const addr = built.app.server.address();
    if (typeof addr !== 'object' || !addr) throw new Error('no address');
    const url = `ws://127.0.0.1:${addr.port}/api/v1/trace/stream?since=${built.trace.next - 1}`;

    const readers = await spawnTsx('test/support/stream-clients.ts', [url, String(clients)], 'ready');
    const out = jsonLineOf<ClientsReport>(readers.proc);
    try {
      const cpu0 = process.cpuUsage();
      const t0 = Date.now();
      const first = built.trace.next;
      const last = await produce(built, rate, ms);
      readers.proc.stdin?.write(`end ${last}\n`);
      const rep = await out;
      const cpu = process.cpuUsage(cpu0);
      const produced = last - first + 1;
      const rates = rep.received.map((n, i) => n / (((rep.lastMs[i] as number) - t0) / 1000));
      o.log(
        `offered ${produced} events; delivered/s per client ${rates.map(Math.round).join(', ')}; resyncs ${rep.resyncs}`,
      );
      rows.push(
        row({
          bench: 'P4',
          metric: `events/s delivered to each of ${clients} clients (slowest; ${rate / 1000}k/s offered, ${ms / 1000} s)`,
          value: min(rates),
          unit: 'ev/s',
          target: { op: '>=', bound: 20_000, on: 'value' },
          note: `received ${min(rep.received)}/${produced}, resyncs ${rep.resyncs}`,
        }),
        row({
          bench: 'P4',
          metric: 'delivery latency p99, record → client',
          value: rep.latencies.p99,
          unit: 'ms',
          target: { op: '<=', bound: 100, on: 'value' },
          note: `p50 ${rep.latencies.p50} ms, max ${rep.latencies.max} ms`,
        }),
        row({
          bench: 'P4',
          metric: 'server CPU while streaming',
          value: ((cpu.user + cpu.system) / 1000 / (Date.now() - t0)) * 100,
          unit: '% of a core',
        }),
      );
    } finally {
      await readers.stop();
    }

    // one client that never reads: the server must bound what it holds for it
    const WebSocket = createRequire(import.meta.url)('ws') as new (
      u: string,
    ) => { once(e: string, f: () => void): void; _socket: { pause(): void }; terminate(): void };
    const stuck = new WebSocket(url.replace(/since=\d+/, `since=${built.trace.next - 1}`));
    await new Promise<void>((r) => stuck.once('open', () => r()));
    stuck._socket.pause();
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let rssMax = rss0;
    await produce(built, rate, ms, () => {
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
    });
    stuck.terminate();
    rows.push(
      row({
        bench: 'P4',
        metric: `server RSS growth with one client that never reads (${(rate * ms) / 1e6}k events offered)`,
        value: (rssMax - rss0) / MB,
        unit: 'MB',
        note: `RSS ${Math.round(rss0 / MB)} → max ${Math.round(rssMax / MB)} MB; the ring itself holds ≤ 200k events`,
      }),
    );
  } finally {
    await built.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
