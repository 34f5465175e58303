/**
 * P2 relist: the engine's PLEG relist (GenericPLEG.relist: list sandboxes and containers, compare with the
 * last relist, update the pod cache for pods that changed) against the two bare list calls it cannot avoid
 * (ListPodSandbox then ListContainers), interleaved one by one on the same channel, steady state (nothing
 * changes between relists). 200 pods on containerd, 1000 on the simulated node. Target ≤ 1.5×.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimNode } from '@syncscope/core';
import { RealClock } from '@syncscope/core/clock';
import { RemoteRuntime } from '@syncscope/core/cri';
import { startPrivateContainerd } from '@syncscope/server/private-containerd';
import { median, p95 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { startEngine } from './lib/engine.ts';
import { rawBringUp, removeAllSandboxes } from './lib/raw-cri.ts';
import { type Row, row, skipped } from './lib/table.ts';

async function measure(
  endpoint: string,
  label: string,
  pods: number,
  rounds: number,
  o: BenchOptions,
): Promise<Row[]> {
  const eng = startEngine(endpoint, {}, { start: false });
  try {
    const t0 = performance.now();
    await eng.kubelet.relist(); // first relist: every pod is new, its status is read into the cache
    const first = performance.now() - t0;
    await eng.kubelet.relist();
    const engine: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const a = performance.now();
      await eng.cri.listPodSandbox();
      await eng.cri.listContainers();
      bare.push(performance.now() - a);
      const b = performance.now();
      await eng.kubelet.relist();
      engine.push(performance.now() - b);
    }
    o.log(`${label}: relist median ${median(engine).toFixed(2)} ms, bare ${median(bare).toFixed(2)} ms`);
    return [
      row({
        bench: 'P2',
        metric: `relist, ${pods} pods on ${label}, engine vs bare lists (median of ${rounds})`,
        value: median(engine),
        floor: median(bare),
        unit: 'ms',
        target: { op: '<=', bound: 1.5, on: 'ratio' },
      }),
      row({
        bench: 'P2',
        metric: `relist p95, ${pods} pods on ${label}`,
        value: p95(engine),
        floor: p95(bare),
        unit: 'ms',
      }),
      row({ bench: 'P2', metric: `first relist (all ${pods} pods new), ${label}`, value: first, unit: 'ms' }),
    ];
  } finally {
    await eng.close();
  }
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const rounds = o.smoke ? 3 : 30;
  const rows: Row[] = [];
  const logRoot = mkdtempSync(join(tmpdir(), 'syncscope-bench-logs-'));
  try {
    // simulated node, in this process, no artificial call latency
    const simPods = o.smoke ? 20 : 1000;
    const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-sim-'));
    const sim = await startSimNode({
      socketPath: join(dir, 'sim.sock'),
      clock: new RealClock(),
      callLatencyMs: {},
    });
    const cri = new RemoteRuntime(sim.endpoint);
    try {
      await rawBringUp(cri, { n: simPods, concurrency: 16, hostNetwork: false, logRoot, prefix: 'sim' });
      rows.push(...(await measure(sim.endpoint, 'the simulated node', simPods, rounds, o)));
    } finally {
      cri.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    }

    const ctdPods = o.smoke ? 10 : 200;
    if (!o.root) {
      rows.push(skipped('P2', `relist, ${ctdPods} pods on containerd`, 'not root: no containerd'));
      return rows;
    }
    const ctd = await startPrivateContainerd(`/tmp/syncscope-bench-ctd-${process.pid}`);
    const ccri = new RemoteRuntime(ctd.endpoint);
    try {
      const t0 = performance.now();
      await rawBringUp(ccri, { n: ctdPods, concurrency: 4, hostNetwork: true, logRoot, prefix: 'rl' });
      o.log(`containerd: ${ctdPods} pods up in ${Math.round(performance.now() - t0)} ms`);
      rows.push(...(await measure(ctd.endpoint, 'containerd', ctdPods, rounds, o)));
    } finally {
      await removeAllSandboxes(ccri, 4).catch(() => undefined);
      ccri.close();
      await ctd.stop();
    }
  } finally {
    rmSync(logRoot, { recursive: true, force: true });
  }
  return rows;
}
