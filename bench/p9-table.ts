/**
 * P9 Kubernetes API Table output: GET /api/v1/pods of 5,000 pods as a server-side Table (what `kubectl get
 * pods -A` asks for) against the plain JSON PodList, side by side in the same process, alternating, median
 * of the rounds each. The route is driven with app.inject on a fake engine holding 5,000 pods with running
 * and crash-looping statuses (5,000 real pods on the simulated node take minutes to start and measure the
 * engine, not the API); resourceVersions, selectors and printing are the real code. Target: Table ≤ 2× JSON.
 * Smoke: 200 pods, 3 rounds.
 */

import type { ContainerStatus, Pod } from '@syncscope/core/api/v1';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '@syncscope/server/http';
import { FakeEngine } from '@syncscope/server/testing';
import { median } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { type Row, row } from './lib/table.ts';

const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

function status(i: number): ContainerStatus {
  const crashing = i % 5 === 0;
  return {
    name: 'app',
    image: 'busybox',
    imageID: 'sha256:0123',
    containerID: `containerd://${i.toString(16).padStart(64, '0')}`,
    ready: !crashing,
    restartCount: crashing ? 7 : 0,
    started: !crashing,
    state: crashing
      ? { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=app' } }
      : { running: { startedAt: '2026-01-01T12:00:05Z' } },
    lastState: crashing
      ? { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-01-01T12:03:00Z' } }
      : {},
  };
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const n = o.smoke ? 200 : 5000;
  const rounds = o.smoke ? 3 : 15;
  const clock = new FakeClock();
  const engine = new FakeEngine(clock);
  const trace = new TraceRecorder(clock, 100_000);
  const app = await createHttpApp({ engine, trace, clock });
  for (let i = 0; i < n; i++) {
    const uid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const name = `pod-${i}`;
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: `ns-${i % 10}`,
        uid,
        labels: { app: `app-${i % 50}` },
        creationTimestamp: '2026-01-01T12:00:00Z',
      },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }] },
    };
    engine.addPod(pod);
    (engine.getPodByUID(uid) as Pod).status = {
      phase: 'Running',
      podIP: `10.88.${i >> 8}.${i & 255}`,
      conditions: [{ type: 'Ready', status: i % 5 === 0 ? 'False' : 'True' }],
      containerStatuses: [status(i)],
    };
    trace.record({
      type: 'status.update',
      podUID: uid,
      pod: `ns-${i % 10}/${name}`,
      status: { phase: 'Running' },
    });
  }
  const time = async (accept: string | undefined) => {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url: '/api/v1/pods', headers: accept ? { accept } : {} });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) throw new Error(`GET /api/v1/pods answered ${res.statusCode}`);
    return { ms, bytes: res.rawPayload.length };
  };
  await time(undefined);
  await time(TABLE); // warm both paths
  const json: number[] = [];
  const table: number[] = [];
  let sizes = { json: 0, table: 0 };
  for (let i = 0; i < rounds; i++) {
    const j = await time(undefined);
    const t = await time(TABLE);
    json.push(j.ms);
    table.push(t.ms);
    sizes = { json: j.bytes, table: t.bytes };
  }
  await app.close();
  const jm = median(json);
  const tm = median(table);
  o.log(
    `${n} pods: JSON ${jm.toFixed(1)} ms (${(sizes.json / 1e6).toFixed(1)} MB), Table ${tm.toFixed(1)} ms (${(sizes.table / 1e6).toFixed(1)} MB)`,
  );
  return [
    row({
      bench: 'P9',
      metric: `Table list of ${n} pods vs the plain JSON list (app.inject, median of ${rounds})`,
      value: tm,
      floor: jm,
      unit: 'ms',
      target: { op: '<=', bound: 2, on: 'ratio' },
    }),
    row({ bench: 'P9', metric: `plain JSON list of ${n} pods`, value: jm, unit: 'ms' }),
  ];
}
