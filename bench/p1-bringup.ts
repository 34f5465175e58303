/**
 * P1 pod bring-up on containerd: N one-container busybox pods through the engine (Kubelet on a RemoteRuntime,
 * all pods added at once, done when every pod's status.update says Running) against the bare CRI script
 * (RunPodSandbox → CreateContainer → StartContainer), same containerd, same run, pod network and hostNetwork.
 * The raw script runs at the engine's concurrency (every pod at once: the kubelet gives each pod its own worker
 * and limits none) and, for reference, on 4 workers (its fastest setting here); the sides rotate which goes first.
 * Target: engine ≤ 1.25× raw at the same concurrency.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteRuntime } from '@syncscope/core/cri';
import { startPrivateContainerd } from '@syncscope/server/private-containerd';
import { median, p95 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { benchPod, startEngine, waitAllFinished, waitAllRunning, waitForTrace } from './lib/engine.ts';
import { rawBringUp, removeAllSandboxes } from './lib/raw-cri.ts';
import { type Row, row, skipped } from './lib/table.ts';

const CONCURRENCY = 4;

interface EngineRun {
  wallMs: number;
  /** When the last StartContainer returned: the runtime's work done, before the next relist reports it. */
  lastStartMs: number;
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
    let lastStart = 0;
    const offStarts = eng.trace.subscribe((ev) => {
      if (ev.type === 'runtime.call' && ev.method === 'StartContainer') lastStart = performance.now();
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const p of pods) eng.kubelet.addPod(p);
    await running;
    const wallMs = performance.now() - t0;
    offStarts();
    const cpu = process.cpuUsage(cpu0);
    const finished = waitAllFinished(eng.trace, uids, 120_000);
    const t1 = performance.now();
    for (const uid of uids) eng.kubelet.deletePod(uid, 0);
    await finished;
    return {
      wallMs,
      lastStartMs: lastStart - t0,
      cpuMs: (cpu.user + cpu.system) / 1000,
      teardownMs: performance.now() - t1,
    };
  } finally {
    await eng.close();
  }
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const n = o.smoke ? 3 : 50;
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
      // raw at the engine's concurrency (every pod at once, as the kubelet's pod workers start them) and at ×4
      const raw = { all: [] as number[], four: [] as number[] };
      const rawPod: number[] = [];
      const rawDown: number[] = [];
      const eng: EngineRun[] = [];
      const order = ['four', 'all', 'engine'] as const;
      for (let t = 0; t < trials; t++) {
        // rotate which side goes first, so a trend in the machine's load does not favour one side
        for (const side of [...order.slice(t % 3), ...order.slice(0, t % 3)]) {
          if (side === 'engine') {
            eng.push(await engineBringUp(ctd.endpoint, n, net.host, logRoot));
            await removeAllSandboxes(cri, CONCURRENCY); // whatever the engine left (none expected)
            o.log(`${net.key} trial ${t + 1} engine: ${Math.round(eng.at(-1)?.wallMs ?? 0)} ms`);
            continue;
          }
          const concurrency = side === 'all' ? n : CONCURRENCY;
          const r = await rawBringUp(cri, {
            n,
            concurrency,
            hostNetwork: net.host,
            logRoot,
            prefix: `raw${t}`,
          });
          raw[side].push(r.wallMs);
          if (side === 'four') rawPod.push(...r.perPodMs);
          const d0 = performance.now();
          await removeAllSandboxes(cri, CONCURRENCY);
          if (side === 'four') rawDown.push(performance.now() - d0);
          o.log(`${net.key} trial ${t + 1} raw ×${concurrency}: ${Math.round(r.wallMs)} ms`);
        }
      }
      const engNote = `engine ${eng.map((e) => Math.round(e.wallMs)).join(', ')}`;
      rows.push(
        row({
          bench: 'P1',
          metric: `${n} pods to Running, ${net.key}, engine vs raw CRI at the same concurrency (×${n}, median of ${trials})`,
          value: median(eng.map((e) => e.wallMs)),
          floor: median(raw.all),
          unit: 'ms',
          target: { op: '<=', bound: 1.25, on: 'ratio' },
          note: `${engNote}; raw ${raw.all.map(Math.round).join(', ')}`,
        }),
        row({
          bench: 'P1',
          metric: `${n} pods to Running, ${net.key}, engine vs raw CRI ×${CONCURRENCY} (the fastest raw)`,
          value: median(eng.map((e) => e.wallMs)),
          floor: median(raw.four),
          unit: 'ms',
          note: `${engNote}; raw ${raw.four.map(Math.round).join(', ')}`,
        }),
        row({
          bench: 'P1',
          metric: `engine's last StartContainer returned, ${net.key} (the rest is the wait for the next relist)`,
          value: median(eng.map((e) => e.lastStartMs)),
          floor: median(raw.all),
          unit: 'ms',
        }),
        row({
          bench: 'P1',
          metric: `raw ×${CONCURRENCY} per-pod latency p95, ${net.key}`,
          value: p95(rawPod),
          unit: 'ms',
        }),
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
