/**
 * One side of P8 (p8-otlp.ts), in a process of its own so its CPU and RSS are the engine's:
 * `tsx bench/p8-otlp-child.ts PODS CRASHING SETTLE_MS WINDOW_MS [OTLP_URL]`. Starts a simulated node process,
 * the engine with PODS pods (CRASHING of them crash-looping, the rest long runners), waits until the long
 * runners are Running and SETTLE_MS more, then measures WINDOW_MS of steady state. With OTLP_URL the trace is
 * exported (apps/server/src/otel/exporter.ts, default batching) as the server does it. Prints one line
 * `result {json}` and exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { otlpConfig } from '@syncscope/server/otel/config';
import { OtlpExport } from '@syncscope/server/otel/exporter';
import { p99 } from '@syncscope/test/support/stats';
import { benchPod, startEngine, waitAllRunning } from './lib/engine.ts';
import { spawnTsx } from './lib/spawn.ts';

const [pods, crashing, settleMs, windowMs] = process.argv.slice(2, 6).map(Number) as [
  number,
  number,
  number,
  number,
];
const url = process.argv[6];
const MB = 2 ** 20;

const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-otlp-'));
const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
const eng = startEngine(sim.ready.slice('ready '.length).trim(), { podLogsDirectory: join(dir, 'pods') });
const config = url ? otlpConfig(url, {}) : undefined;
if (typeof config === 'string') throw new Error(config);
const exp = config
  ? new OtlpExport({ config, nodeName: 'bench-node', version: 'bench', now: () => eng.clock.now() })
  : undefined;
const unsubscribe = exp ? eng.trace.subscribe(exp.listener) : () => {};
try {
  const all = Array.from({ length: pods }, (_, i) =>
    i < crashing
      ? benchPod(`crash-${i}`, eng.clock, { script: 'exit 1' })
      : benchPod(`run-${i}`, eng.clock, { script: 'sleep 3600' }),
  );
  const running = waitAllRunning(
    eng.trace,
    all.slice(crashing).map((p) => p.metadata.uid as string),
    900_000,
  );
  for (const p of all) eng.kubelet.addPod(p);
  await running;
  await new Promise((r) => setTimeout(r, settleMs));

  const loop: number[] = [];
  let events = 0;
  const off = eng.trace.subscribe((ev) => {
    events++;
    if (ev.type === 'loop.iteration') loop.push(ev.durationMs);
  });
  let rssMax = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 250);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs)); // the measurement window itself
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  clearInterval(sampler);
  off();
  const result = {
    cpuShare: (cpu.user + cpu.system) / 1000 / wall,
    rssMaxMB: Math.max(rssMax, process.memoryUsage().rss) / MB,
    loopP99: p99(loop),
    events,
    exported: exp?.totals.exported ?? 0,
    dropped: exp?.totals.dropped ?? 0,
  };
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
} finally {
  unsubscribe();
  await exp?.close();
  await eng.close();
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
