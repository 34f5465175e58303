/**
 * P1 pod bring-up on containerd: N one-container busybox pods through the engine (Kubelet on a RemoteRuntime,
 * all pods added at once, done when every pod's status.update says Running) against the bare CRI script
 * (RunPodSandbox → CreateContainer → StartContainer on 4 workers), same containerd, same run, pod network
 * and hostNetwork, the two sides alternating which goes first. Target: engine ≤ 1.25× raw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPrivateContainerd } from '../apps/server/src/private-containerd.ts';
import { RemoteRuntime } from '../packages/core/src/cri/remote-runtime.ts';
import type { BenchOptions } from './lib/bench.ts';
import { benchPod, startEngine, waitAllFinished, waitAllRunning, waitForTrace } from './lib/engine.ts';
import { rawBringUp, removeAllSandboxes } from './lib/raw-cri.ts';
import { median, p95 } from './lib/stats.ts';
import { type Row, row, skipped } from './lib/table.ts';

const CONCURRENCY = 4;

interface EngineRun {
  wallMs: number;
  cpuMs: number;
  teardownMs: number;
}

async function engineBringUp(
  endpoint: string,
  n: number,
  hostNetwork: boolean,
  logRoot: string,
): Promise<EngineRun> {
  const eng = startEngine(endpoint, { podLogsDirectory: logRoot });
  try {
    await waitForTrace(eng.trace, 'runtime ready', (ev) => ev?.type === 'runtime.state' && ev.ready, 30_000);
    const pods = Array.from({ length: n }, (_, i) => benchPod(`eng-${i}`, eng.clock, { hostNetwork }));
    const uids = pods.map((p) => p.metadata.uid as string);
    const running = waitAllRunning(eng.trace, uids, 120_000);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const p of pods) eng.kubelet.addPod(p);
    await running;
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const finished = waitAllFinished(eng.trace, uids, 120_000);
    const t1 = performance.now();
    for (const uid of uids) eng.kubelet.deletePod(uid, 0);
    await finished;
    return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, teardownMs: performance.now() - t1 };
  } finally {
    await eng.close();
  }
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const n = o.smoke ? 5 : 50;
  const trials = o.smoke ? 1 : 3;
  const nets = [
    { key: 'pod network', host: false },
    { key: 'hostNetwork', host: true },
  ];
  if (!o.root)
    return nets.map((net) => skipped('P1', `${n} pods bring-up, ${net.key}`, 'not root: no containerd'));

  const dir = `/tmp/syncscope-bench-ctd-${process.pid}`;
  const logRoot = mkdtempSync(join(tmpdir(), 'syncscope-bench-logs-'));
  const ctd = await startPrivateContainerd(dir);
  const cri = new RemoteRuntime(ctd.endpoint);
  const rows: Row[] = [];
  try {
    // warm-up: the first sandbox on a fresh containerd creates the CNI bridge and unpacks the images
    for (const net of nets) {
      await rawBringUp(cri, { n: 2, concurrency: 2, hostNetwork: net.host, logRoot, prefix: 'warm' });
      await removeAllSandboxes(cri);
    }
    for (const net of nets) {
      const raw: number[] = [];
      const rawPod: number[] = [];
      const rawDown: number[] = [];
      const eng: EngineRun[] = [];
      for (let t = 0; t < trials; t++) {
        const sides = t % 2 === 0 ? ['raw', 'engine'] : ['engine', 'raw'];
        for (const side of sides) {
          if (side === 'raw') {
            const r = await rawBringUp(cri, {
              n,
              concurrency: CONCURRENCY,
              hostNetwork: net.host,
              logRoot,
              prefix: `raw${t}`,
            });
            raw.push(r.wallMs);
            rawPod.push(...r.perPodMs);
            const d0 = performance.now();
            await removeAllSandboxes(cri, CONCURRENCY);
            rawDown.push(performance.now() - d0);
          } else {
            eng.push(await engineBringUp(ctd.endpoint, n, net.host, logRoot));
            await removeAllSandboxes(cri, CONCURRENCY); // whatever the engine left (none expected)
          }
          o.log(
            `${net.key} trial ${t + 1} ${side}: ${Math.round(side === 'raw' ? (raw.at(-1) ?? 0) : (eng.at(-1)?.wallMs ?? 0))} ms`,
          );
        }
      }
      const target = { op: '<=', bound: 1.25, on: 'ratio' } as const;
      rows.push(
        row({
          bench: 'P1',
          metric: `${n} pods to Running, ${net.key}, engine vs raw CRI ×${CONCURRENCY} (median of ${trials})`,
          value: median(eng.map((e) => e.wallMs)),
          floor: median(raw),
          unit: 'ms',
          target,
          note: `engine ${eng.map((e) => Math.round(e.wallMs)).join(', ')}; raw ${raw.map(Math.round).join(', ')}`,
        }),
        row({ bench: 'P1', metric: `raw per-pod latency p95, ${net.key}`, value: p95(rawPod), unit: 'ms' }),
        row({
          bench: 'P1',
          metric: `engine CPU per pod brought up, ${net.key}`,
          value: median(eng.map((e) => e.cpuMs / n)),
          unit: 'ms',
        }),
        row({
          bench: 'P1',
          metric: `teardown of ${n} pods, ${net.key}, engine (grace 0) vs raw Stop+Remove ×${CONCURRENCY}`,
          value: median(eng.map((e) => e.teardownMs)),
          floor: median(rawDown),
          unit: 'ms',
        }),
      );
    }
  } finally {
    await removeAllSandboxes(cri).catch(() => undefined);
    cri.close();
    await ctd.stop();
    rmSync(logRoot, { recursive: true, force: true });
  }
  return rows;
}
