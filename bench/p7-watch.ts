/**
 * P7 (c): observe mode with the API watch. The observer's relist (as P7 b: the generic PLEG, 1 s relist, over the
 * CRI of a simulated node in another process, 110 pods × 2 containers) and, beside it, the API source
 * (observe/api-source.ts) listing and watching the node's 110 pods and their Events on an API server in a process
 * of its own (bench/p7-watch-server.ts) that changes one pod's status a second and answers the Events with a
 * List (re-listed every 10 s). Four windows one after another: the bare list calls at the relist's rate (the
 * floor), the same with a bare read of the API traffic beside them (the list calls' floor counts none of the
 * API's decoding, which the measured side does), the relist alone, the relist with the API source. Targets, as
 * P7's: ≤ 1.5× the floor and ≤ 2 % of a core.
 */
import { get } from 'node:http';
import { ApiSource } from '@syncscope/server/observe/api-source';
import { KubeClient } from '@syncscope/server/observe/kube-client';
import type { BenchOptions } from './lib/bench.ts';
import { bareListCalls, relisting, startObservedNode } from './lib/observed-node.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

/** How often the Events are listed again: the test server answers their watch with a List, as ours does. */
const EVENTS_RELIST_MS = 10_000;

/**
 * The same API traffic the source reads, read bare (no reflector, no store, no trace): the pod list once, the
 * pod watch's lines parsed, the Events list every 10 s parsed. Returns its stop.
 */
function bareApiReads(base: string, nodeName: string): () => void {
  const open: { destroy(): void }[] = [];
  const read = (path: string, onLine: (l: string) => void) => {
    const req = get(new URL(path, base), (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          onLine(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
      res.on('end', () => buf !== '' && onLine(buf));
    });
    req.on('error', () => undefined);
    open.push(req);
  };
  const pods = `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${nodeName}`)}`;
  const events = `/api/v1/events?fieldSelector=${encodeURIComponent('involvedObject.kind=Pod')}`;
  read(pods, (l) => JSON.parse(l));
  read(`${pods}&watch=true`, (l) => JSON.parse(l));
  read(events, (l) => JSON.parse(l));
  const timer = setInterval(() => read(events, (l) => JSON.parse(l)), EVENTS_RELIST_MS);
  return () => {
    clearInterval(timer);
    for (const r of open) r.destroy();
  };
}

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
    const apiURL = api.ready.slice('ready '.length).trim();
    const { cpu: rawWithApi } = await bareListCalls(node.cri, ms, () => bareApiReads(apiURL, node.nodeName));
    const relistOnly = await relisting(node, ms);
    let ops = 0;
    const off = node.trace.subscribe((ev) => {
      if (ev.type === 'config.update') ops++;
    });
    const source = new ApiSource({
      client: new KubeClient({
        server: new URL(apiURL),
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
      `${pods} pods: relist + API ${(withApi * 100).toFixed(2)} % (${ops} config ops), relist ${(relistOnly * 100).toFixed(2)} %, raw ${(raw * 100).toFixed(2)} %, ` +
        `raw + bare API reads ${(rawWithApi * 100).toFixed(2)} %`,
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
        metric:
          '… the same vs the bare list calls and a bare read of the same API traffic in one window ' +
          '(list, watch lines and Events parsed, nothing kept: the floor proposed for this row)',
        value: withApi * 100,
        floor: rawWithApi * 100,
        unit: '% of a core',
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
