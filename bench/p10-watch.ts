/**
 * P10 watch: how soon a pod watch tells of a change. The HTTP app (createHttpApp: the real routes, the watch
 * index on a TraceRecorder) over an engine stand-in holding 1,000 pods; 10 watchers of /api/v1/pods from the
 * list's resourceVersion in a process of their own (test/support/watch-clients.ts). Pods are changed at a
 * steady rate (an annotation carrying the time of the change, then the config.update the pod config would
 * record); each watcher measures change → event parsed. Target: p99 ≤ 100 ms. The engine is a stand-in
 * so that the figure is the watch's own (the sync loop's work is measured by P3).
 */

import type { Pod } from '@syncscope/core/api/v1';
import { RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '@syncscope/server/http';
import { FakeEngine } from '@syncscope/server/testing';
import type { BenchOptions } from './lib/bench.ts';
import { collectStdout, spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

export async function run(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 1_000;
  const watchers = o.smoke ? 2 : 10;
  const rate = o.smoke ? 50 : 200;
  const ms = o.smoke ? 1_000 : 10_000;
  const clock = new RealClock();
  const trace = new TraceRecorder(clock);
  const engine = new FakeEngine(clock);
  const record = (pod: Pod, op: 'ADD' | 'UPDATE') =>
    trace.record({
      type: 'config.update',
      op,
      source: 'api',
      podUID: pod.metadata.uid as string,
      pod: `default/${pod.metadata.name}`,
    });
  for (let i = 0; i < pods; i++) {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${i}`, namespace: 'default', uid: `uid-${i}`, labels: { app: 'bench' } },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }] },
    };
    engine.addPod(pod);
    record(pod, 'ADD');
  }
  const app = await createHttpApp({ engine, trace, clock, limits: { maxStreamsPerAddress: 64 } });
  const rows: Row[] = [];
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const addr = app.server.address();
    if (typeof addr !== 'object' || !addr) throw new Error('no address');
    const url = `http://127.0.0.1:${addr.port}/api/v1/pods?watch=true&resourceVersion=${trace.next - 1}`;
    const readers = await spawnTsx('test/support/watch-clients.ts', [url, String(watchers)], 'ready');
    const out = collectStdout(readers.proc);
    try {
      const t0 = performance.now();
      let made = 0;
      while (performance.now() - t0 < ms) {
        const due = Math.floor(((performance.now() - t0) * rate) / 1000);
        for (; made < due; made++) {
          const uid = `uid-${made % pods}`;
          const pod = engine.getPodByUID(uid) as Pod;
          const at = String(performance.timeOrigin + performance.now());
          engine.updatePod({
            ...pod,
            metadata: { ...pod.metadata, annotations: { 'bench/changed-at': at } },
          });
          record(pod, 'UPDATE');
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      readers.proc.stdin?.write(`end ${made}\n`);
      const rep = JSON.parse((await out).trim().split('\n').pop() ?? '{}') as {
        received: number[];
        latencies: { p50: number; p99: number; max: number };
      };
      o.log(`${made} changes; received per watcher ${rep.received.join(', ')}`);
      rows.push(
        row({
          bench: 'P10',
          metric: `watch: a pod change to each of ${watchers} watchers, ${pods} pods, ${rate} changes/s, p99`,
          value: rep.latencies.p99,
          unit: 'ms',
          target: { op: '<=', bound: 100, on: 'value' },
          note: `p50 ${rep.latencies.p50} ms, max ${rep.latencies.max} ms; received ${Math.min(...rep.received)}/${made}`,
        }),
      );
    } finally {
      await readers.stop();
    }
  } finally {
    await app.close();
  }
  return rows;
}
