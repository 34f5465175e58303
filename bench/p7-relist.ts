/**
 * P7 (b): the observer's relist cost. The generic PLEG (the engine's own, 1 s relist) runs alone over the CRI
 * of a simulated node in another process, with no engine: only list and status reads reach the runtime. Beside
 * it, one window apart, a raw loop makes the same list calls at the same rate (ListPodSandbox + ListContainers,
 * then the next one a period after the last ended, as wait.Until does). Steady state: nothing changes between
 * relists, so neither reads a pod's status. 110 pods (the kubelet's default maximum) × 2 containers.
 * Targets: ≤ 1.5× the raw loop's CPU and ≤ 2 % of a core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GenericPLEG, KubeGenericRuntimeManager, PodCache } from '@syncscope/core';
import { RealClock } from '@syncscope/core/clock';
import { RemoteRuntime } from '@syncscope/core/cri';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { Recorder } from '@syncscope/core/kubelet/events/recorder';
import type { BenchOptions } from './lib/bench.ts';
import { rawBringUp } from './lib/raw-cri.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

const PERIOD_MS = 1_000;

/** CPU of this process over `ms` while `run` works, as a share of one core. */
async function cpuOver(ms: number, run: () => () => void): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stop = run();
  await new Promise((r) => setTimeout(r, ms)); // the measurement window itself
  stop();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / (performance.now() - t0);
}

export async function relistRows(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 110;
  const ms = o.smoke ? 2_000 : 30_000;
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-p7-'));
  const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
  const cri = new RemoteRuntime(sim.ready.slice('ready '.length).trim());
  try {
    await rawBringUp(cri, {
      n: pods,
      concurrency: 16,
      hostNetwork: false,
      logRoot: dir,
      prefix: 'obs',
      containers: 2,
    });
    const clock = new RealClock();
    const trace = new TraceRecorder(clock, 10_000);
    const config = { ...defaultKubeletConfiguration };
    const recorder = new Recorder(clock, trace, config.nodeName);
    const runtime = new KubeGenericRuntimeManager({ cri, clock, trace, recorder, config });
    const pleg = new GenericPLEG(
      runtime,
      new PodCache(),
      clock,
      trace,
      { relistPeriodMs: PERIOD_MS, relistThresholdMs: 180_000 },
      10_000,
    );
    await pleg.relist(); // every pod new: its status read once, before the steady state measured
    await pleg.relist();
    let rawRounds = 0;
    const raw = await cpuOver(ms, () => {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const loop = async () => {
        await cri.listPodSandbox();
        await cri.listContainers();
        rawRounds++;
        if (!stopped) timer = setTimeout(() => void loop(), PERIOD_MS);
      };
      void loop();
      return () => {
        stopped = true;
        clearTimeout(timer);
      };
    });
    let relists = 0;
    const off = trace.subscribe((ev) => {
      if (ev.type === 'pleg.relist') relists++;
    });
    const observer = await cpuOver(ms, () => {
      pleg.start();
      return () => pleg.stop();
    });
    off();
    o.log(
      `${pods} pods: observer ${(observer * 100).toFixed(2)} % (${relists} relists), raw ${(raw * 100).toFixed(2)} % (${rawRounds} rounds)`,
    );
    return [
      row({
        bench: 'P7',
        metric: `observer relist CPU, ${pods} pods × 2 containers, 1 s relist, vs the bare list calls at the same rate (${ms / 1000} s each)`,
        value: observer * 100,
        floor: raw * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 1.5, on: 'ratio' },
      }),
      row({
        bench: 'P7',
        metric: `observer relist CPU, ${pods} pods, share of a core`,
        value: observer * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 2, on: 'value' },
      }),
    ];
  } finally {
    cri.close();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
