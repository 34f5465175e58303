/**
 * P7 (c): observe mode with the API watch. The observer's relist (as P7 b: the generic PLEG, 1 s relist, over the
 * CRI of a simulated node in another process, 110 pods × 2 containers) and, beside it, the API source
 * (observe/api-source.ts) listing and watching the node's 110 pods and their Events on an API server in a process
 * of its own (bench/p7-watch-server.ts) that changes one pod's status a second and answers the Events with a
 * List (re-listed every 10 s). Three windows one after another: the bare list calls at the relist's rate (the
 * floor), the relist alone, the relist with the API source. Targets, as P7's: ≤ 1.5× the floor and ≤ 2 % of a
 * core.
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
import { ApiSource } from '@syncscope/server/observe/api-source';
import { KubeClient } from '@syncscope/server/observe/kube-client';
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

export async function watchRows(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 110;
  const ms = o.smoke ? 2_000 : 30_000;
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-p7w-'));
  const sim = await spawnTsx('bench/lib/sim-node-proc.ts', [join(dir, 'sim.sock')], 'ready ');
  const config = { ...defaultKubeletConfiguration };
  const api = await spawnTsx('bench/p7-watch-server.ts', [config.nodeName, String(pods), '1'], 'ready ');
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
    await pleg.relist();
    await pleg.relist();
    const raw = await cpuOver(ms, () => {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const loop = async () => {
        await cri.listPodSandbox();
        await cri.listContainers();
        if (!stopped) timer = setTimeout(() => void loop(), PERIOD_MS);
      };
      void loop();
      return () => {
        stopped = true;
        clearTimeout(timer);
      };
    });
    const relistOnly = await cpuOver(ms, () => {
      pleg.start();
      return () => pleg.stop();
    });
    let ops = 0;
    const off = trace.subscribe((ev) => {
      if (ev.type === 'config.update') ops++;
    });
    const source = new ApiSource({
      client: new KubeClient({
        server: new URL(api.ready.slice('ready '.length).trim()),
        authorization: () => undefined,
      }),
      nodeName: config.nodeName,
      clock,
      trace,
      warn: (m) => o.log(`api: ${m}`),
      onRuntime: () => true,
    });
    // the first list (every pod an ADD) before the steady state measured, as the relist's first reads above
    const listed = new Promise<void>((resolve) => {
      const check = trace.subscribe(() => {
        if (ops < pods) return;
        check();
        resolve();
      });
    });
    source.start();
    await listed;
    ops = 0;
    const withApi = await cpuOver(ms, () => {
      pleg.start();
      return () => pleg.stop();
    });
    await source.stop();
    off();
    o.log(
      `${pods} pods: relist + API ${(withApi * 100).toFixed(2)} % (${ops} config ops), relist ${(relistOnly * 100).toFixed(2)} %, raw ${(raw * 100).toFixed(2)} %`,
    );
    const what = `${pods} pods × 2 containers, 1 s relist, API watch with 1 status change/s (${ms / 1000} s each)`;
    return [
      row({
        bench: 'P7',
        metric: `observer relist + API watch CPU, ${what}, vs the bare list calls`,
        value: withApi * 100,
        floor: raw * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 1.5, on: 'ratio' },
      }),
      row({
        bench: 'P7',
        metric: `observer relist + API watch CPU, ${pods} pods, share of a core`,
        value: withApi * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 2, on: 'value' },
      }),
      row({
        bench: 'P7',
        metric: `… the relist alone in the same run`,
        value: relistOnly * 100,
        unit: '% of a core',
      }),
    ];
  } finally {
    cri.close();
    await api.stop();
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
