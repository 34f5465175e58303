/**
 * P7 (b): the observer's relist cost. The generic PLEG (the engine's own, 1 s relist) runs alone over the CRI
 * of a simulated node in another process, with no engine: only list and status reads reach the runtime. Beside
 * it, one window apart, a raw loop makes the same list calls at the same rate (ListPodSandbox + ListContainers,
 * then the next one a period after the last ended, as wait.Until does). Steady state: nothing changes between
 * relists, so neither reads a pod's status. 110 pods (the kubelet's default maximum) × 2 containers.
 * Targets: ≤ 1.5× the raw loop's CPU and ≤ 2 % of a core.
 */
import type { BenchOptions } from './lib/bench.ts';
import { bareListCalls, relisting, startObservedNode } from './lib/observed-node.ts';
import { type Row, row } from './lib/table.ts';

export async function relistRows(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 110;
  const ms = o.smoke ? 1_000 : 30_000;
  const node = await startObservedNode(pods);
  try {
    const { cpu: raw, rounds: rawRounds } = await bareListCalls(node.cri, ms);
    let relists = 0;
    const off = node.trace.subscribe((ev) => {
      if (ev.type === 'pleg.relist') relists++;
    });
    const observer = await relisting(node, ms);
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
    await node.close();
  }
}
