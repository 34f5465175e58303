/**
 * P7 (c): observe mode with the API watch. The observer's relist (as P7 b: the generic PLEG, 1 s relist, over the
 * CRI of a simulated node in another process, 110 pods × 2 containers) and, beside it, the API source
 * (observe/api-source.ts) listing and watching the node's 110 pods and their Events on an API server in a process
 * of its own (bench/p7-watch-server.ts) that changes one pod's status a second and answers the Events with a
 * List (re-listed every 10 s). Three windows one after another: the bare list calls at the relist's rate (the
 * floor), the relist alone, the relist with the API source. Targets, as P7's: ≤ 1.5× the floor and ≤ 2 % of a
 * core.
 */
import { ApiSource } from '@syncscope/server/observe/api-source';
import { KubeClient } from '@syncscope/server/observe/kube-client';
import type { BenchOptions } from './lib/bench.ts';
import { bareListCalls, relisting, startObservedNode } from './lib/observed-node.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

export async function watchRows(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 110;
  const ms = o.smoke ? 1_000 : 30_000;
  const node = await startObservedNode(pods);
  const api = await spawnTsx('bench/p7-watch-server.ts', [node.nodeName, String(pods), '1'], 'ready ').catch(
    async (e: unknown) => {
      await node.close();
      throw e;
    },
  );
  try {
    const { cpu: raw } = await bareListCalls(node.cri, ms);
    const relistOnly = await relisting(node, ms);
    let ops = 0;
    const off = node.trace.subscribe((ev) => {
      if (ev.type === 'config.update') ops++;
    });
    const source = new ApiSource({
      client: new KubeClient({
        server: new URL(api.ready.slice('ready '.length).trim()),
        authorization: () => undefined,
      }),
      nodeName: node.nodeName,
      clock: node.clock,
      trace: node.trace,
      warn: (m) => o.log(`api: ${m}`),
      onRuntime: () => true,
    });
    // the first list (every pod an ADD) before the steady state measured, as the relist's first reads above
    const listed = new Promise<void>((resolve) => {
      const check = node.trace.subscribe(() => {
        if (ops < pods) return;
        check();
        resolve();
      });
    });
    source.start();
    await listed;
    ops = 0;
    const withApi = await relisting(node, ms);
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
    await api.stop();
    await node.close();
  }
}
