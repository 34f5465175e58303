/**
 * P3 idle cost at scale, on the simulated node run in a separate process (so this process's CPU and RSS are
 * the engine's): N pods of 2 containers brought up, then the engine left alone. Measures over a window of
 * steady state: the engine's CPU as a share of one core (target ≤ 5 %) and RSS (≤ 300 MB) at 1000 pods;
 * then, scaled to 5000 pods, the sync-loop iteration p99 and housekeeping duration against the kubelet's
 * 1 s "took longer than expected" warning. The full run's window covers one 1-minute resync period.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import { max, p99 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { type BenchEngine, benchPod, startEngine, waitAllRunning } from './lib/engine.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

const MB = 2 ** 20;

async function scaleTo(eng: BenchEngine, from: number, to: number, o: BenchOptions): Promise<void> {
  const pods = Array.from({ length: to - from }, (_, i) =>
    benchPod(`idle-${from + i}`, eng.clock, { containers: 2 }),
  );
  const running = waitAllRunning(
    eng.trace,
    pods.map((p) => p.metadata.uid as string),
    900_000,
  );
  const t0 = performance.now();
  for (const p of pods) eng.kubelet.addPod(p);
  await running;
  o.log(`${to} pods Running (${to - from} added in ${Math.round(performance.now() - t0)} ms)`);
}

interface Window {
  cpuShare: number;
  rssMaxMB: number;
  heapMB: number;
  events: TraceEvent[];
}

/** Lets the engine run untouched for `ms` and reports what it cost. */
async function observe(eng: BenchEngine, ms: number): Promise<Window> {
  const events: TraceEvent[] = [];
  const off = eng.trace.subscribe((ev) => {
    if (ev.type === 'loop.iteration' || ev.type === 'housekeeping' || ev.type === 'pleg.relist')
      events.push(ev);
  });
  let rssMax = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 250);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, ms)); // the measurement window itself, not a wait for a result
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  clearInterval(sampler);
  off();
  return {
    cpuShare: (cpu.user + cpu.system) / 1000 / wall,
    rssMaxMB: Math.max(rssMax, process.memoryUsage().rss) / MB,
    heapMB: process.memoryUsage().heapUsed / MB,
    events,
  };
}

function durations(w: Window, type: TraceEvent['type']): number[] {
  return w.events.flatMap((e) => (e.type === type && 'durationMs' in e ? [e.durationMs] : []));
}

export async function run(o: BenchOptions): Promise<Row[]> {
  // BENCH_P3_PODS=idle,big overrides the sizes (profiling one size without the whole run)
  const sizes = process.env.BENCH_P3_PODS?.split(',').map(Number);
  const idlePods = sizes?.[0] ?? (o.smoke ? 20 : 1000);
  const bigPods = sizes?.[1] ?? (o.smoke ? 40 : 5000);
  const settleMs = o.smoke ? 500 : 10_000;
  const idleWindowMs = o.smoke ? 1_000 : 65_000;
  const bigWindowMs = o.smoke ? 1_000 : 30_000;
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-idle-'));
  const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
  const endpoint = sim.ready.slice('ready '.length).trim();
  const eng = startEngine(endpoint, { podLogsDirectory: join(dir, 'pods') });
  const rows: Row[] = [];
  try {
    await scaleTo(eng, 0, idlePods, o);
    await new Promise((r) => setTimeout(r, settleMs));
    const w = await observe(eng, idleWindowMs);
    o.log(`${idlePods} pods: CPU ${(w.cpuShare * 100).toFixed(1)} %, RSS ${Math.round(w.rssMaxMB)} MB`);
    rows.push(
      row({
        bench: 'P3',
        metric: `engine CPU, ${idlePods} pods × 2 containers idle (${idleWindowMs / 1000} s window)`,
        value: w.cpuShare * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 5, on: 'value' },
      }),
      row({
        bench: 'P3',
        metric: `engine RSS (max), ${idlePods} pods idle`,
        value: w.rssMaxMB,
        unit: 'MB',
        target: { op: '<=', bound: 300, on: 'value' },
        note: `heap used ${Math.round(w.heapMB)} MB`,
      }),
      row({
        bench: 'P3',
        metric: `relist p99, ${idlePods} pods idle`,
        value: p99(durations(w, 'pleg.relist')),
        unit: 'ms',
      }),
    );

    await scaleTo(eng, idlePods, bigPods, o);
    await new Promise((r) => setTimeout(r, settleMs));
    const b = await observe(eng, bigWindowMs);
    const loop = durations(b, 'loop.iteration');
    const hk = durations(b, 'housekeeping');
    rows.push(
      row({
        bench: 'P3',
        metric: `sync-loop iteration p99, ${bigPods} pods (${loop.length} iterations)`,
        value: p99(loop),
        unit: 'ms',
        target: { op: '<=', bound: 1000, on: 'value' },
        note: `max ${Math.round(max(loop))} ms`,
      }),
      row({
        bench: 'P3',
        metric: `housekeeping duration max, ${bigPods} pods (${hk.length} runs)`,
        value: max(hk),
        unit: 'ms',
        target: { op: '<=', bound: 1000, on: 'value' },
      }),
      row({
        bench: 'P3',
        metric: `relist p99, ${bigPods} pods`,
        value: p99(durations(b, 'pleg.relist')),
        unit: 'ms',
      }),
      row({
        bench: 'P3',
        metric: `engine CPU, ${bigPods} pods idle`,
        value: b.cpuShare * 100,
        unit: '% of a core',
      }),
      row({ bench: 'P3', metric: `engine RSS (max), ${bigPods} pods idle`, value: b.rssMaxMB, unit: 'MB' }),
    );
  } finally {
    await eng.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
