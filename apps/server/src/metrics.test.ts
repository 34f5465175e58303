import type { Pod, PodStatus } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from './http.ts';
import { KubeletMetrics, operationType } from './metrics.ts';
import { FakeEngine } from './testing.ts';

let clock: FakeClock;
let trace: TraceRecorder;
let engine: FakeEngine;
let app: FastifyInstance;

const ref = (name: string) => ({ podUID: `uid-${name}`, pod: `default/${name}` });

function addPod(name: string, init: string[] = []): Pod {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      containers: [{ name: 'app', image: 'busybox' }],
      ...(init.length ? { initContainers: init.map((n) => ({ name: n, image: 'busybox' })) } : {}),
    },
  };
  engine.addPod(pod);
  return pod;
}

/** `name{labels} value` lines of the exposition, as a map. */
async function scrape(a = app): Promise<Map<string, number>> {
  const res = await a.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const out = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

beforeEach(async () => {
  clock = new FakeClock();
  trace = new TraceRecorder(clock, 1000);
  engine = new FakeEngine(clock);
  app = await createHttpApp({ engine, trace, clock });
});
afterEach(() => app.close());

describe('GET /metrics', () => {
  it('counts runtime operations by operation_type with errors and durations', async () => {
    trace.record({ type: 'runtime.call', method: 'RunPodSandbox', durationMs: 60 });
    trace.record({ type: 'runtime.call', method: 'ListPodSandbox', durationMs: 2 });
    trace.record({ type: 'runtime.call', method: 'StartContainer', durationMs: 45, code: 2, error: 'boom' });
    trace.record({ type: 'runtime.call', method: 'StartContainer', durationMs: 40 });
    const m = await scrape();
    expect(m.get('kubelet_runtime_operations_total{operation_type="run_podsandbox"}')).toBe(1);
    expect(m.get('kubelet_runtime_operations_total{operation_type="list_podsandbox"}')).toBe(1);
    expect(m.get('kubelet_runtime_operations_total{operation_type="start_container"}')).toBe(2);
    expect(m.get('kubelet_runtime_operations_errors_total{operation_type="start_container"}')).toBe(1);
    expect(m.has('kubelet_runtime_operations_errors_total{operation_type="run_podsandbox"}')).toBe(false);
    expect(
      m.get('kubelet_runtime_operations_duration_seconds_sum{operation_type="start_container"}'),
    ).toBeCloseTo(0.085);
    // the kubelet's buckets: 0.005 × 2.5^k
    expect(
      m.get(
        'kubelet_runtime_operations_duration_seconds_bucket{le="0.078125",operation_type="start_container"}',
      ),
    ).toBe(2);
    expect(
      m.get(
        'kubelet_runtime_operations_duration_seconds_bucket{le="0.03125",operation_type="start_container"}',
      ),
    ).toBe(0);
  });

  it('observes PLEG relist durations and the interval between relist starts', async () => {
    await clock.step(1000);
    trace.record({ type: 'pleg.relist', durationMs: 4, pods: 0, containers: 0, events: 0 });
    await clock.step(1000);
    trace.record({ type: 'pleg.relist', durationMs: 2, pods: 0, containers: 0, events: 0 });
    const m = await scrape();
    expect(m.get('kubelet_pleg_relist_duration_seconds_count')).toBe(2);
    expect(m.get('kubelet_pleg_relist_duration_seconds_sum')).toBeCloseTo(0.006);
    expect(m.get('kubelet_pleg_relist_interval_seconds_count')).toBe(1);
    expect(m.get('kubelet_pleg_relist_interval_seconds_sum')).toBeCloseTo(1.002);
    expect(m.get('kubelet_pleg_last_seen_seconds')).toBe(clock.now() / 1000);
    expect(m.get('kubelet_pleg_discard_events')).toBe(0);
  });

  it('labels pod worker durations by the operation of the matching sync.start', async () => {
    const web = ref('web');
    trace.record({ type: 'sync.start', ...web, workType: 'SyncPod', updateType: 'SyncPodCreate' });
    trace.record({ type: 'sync.result', ...web, workType: 'SyncPod', actions: [], durationMs: 120 });
    trace.record({ type: 'sync.start', ...web, workType: 'SyncPod', updateType: 'SyncPodSync' });
    trace.record({ type: 'sync.result', ...web, workType: 'SyncPod', actions: [], durationMs: 3 });
    trace.record({ type: 'sync.start', ...web, workType: 'TerminatingPod', updateType: 'SyncPodKill' });
    trace.record({ type: 'sync.result', ...web, workType: 'TerminatingPod', actions: [], durationMs: 2000 });
    trace.record({ type: 'sync.start', ...web, workType: 'TerminatedPod', updateType: 'SyncPodKill' });
    trace.record({ type: 'sync.result', ...web, workType: 'TerminatedPod', actions: [], durationMs: 1 });
    const m = await scrape();
    expect(m.get('kubelet_pod_worker_duration_seconds_count{operation_type="create"}')).toBe(1);
    expect(m.get('kubelet_pod_worker_duration_seconds_sum{operation_type="create"}')).toBeCloseTo(0.12);
    expect(m.get('kubelet_pod_worker_duration_seconds_count{operation_type="sync"}')).toBe(1);
    expect(m.get('kubelet_pod_worker_duration_seconds_count{operation_type="kill"}')).toBe(1);
    expect(m.get('kubelet_pod_worker_duration_seconds_count{operation_type="terminated"}')).toBe(1);
  });

  it('counts started pods and containers from the sync actions, with the kubelet error names', async () => {
    addPod('web', ['setup']);
    const web = ref('web');
    trace.record({
      type: 'sync.result',
      ...web,
      workType: 'SyncPod',
      durationMs: 5,
      actions: [
        { action: 'CreatePodSandbox', target: 'web_default(uid-web)' },
        { action: 'StartContainer', target: 'setup' },
        { action: 'StartContainer', target: 'app', error: 'ErrImagePull', message: 'pull failed' },
      ],
    });
    trace.record({
      type: 'sync.result',
      ...web,
      workType: 'SyncPod',
      durationMs: 5,
      actions: [
        { action: 'CreatePodSandbox', target: 'web_default(uid-web)', error: 'CreatePodSandboxError' },
        { action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff', message: 'back-off 10s' },
      ],
    });
    const m = await scrape();
    expect(m.get('kubelet_started_pods_total')).toBe(2);
    expect(m.get('kubelet_started_pods_errors_total')).toBe(1);
    expect(m.get('kubelet_started_containers_total{container_type="init_container"}')).toBe(1);
    expect(m.get('kubelet_started_containers_total{container_type="container"}')).toBe(1);
    expect(
      m.get('kubelet_started_containers_errors_total{container_type="container",code="ErrImagePull"}'),
    ).toBe(1);
    expect([...m.keys()].some((k) => k.includes('CrashLoopBackOff'))).toBe(false);
  });

  it('adds housekeeping orphans and restarts', async () => {
    trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 2, restarted: 1 });
    trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 1, orphansKilled: 1, restarted: 0 });
    const m = await scrape();
    expect(m.get('kubelet_orphaned_runtime_pods_total')).toBe(3);
    expect(m.get('kubelet_restarted_pods_total{static=""}')).toBe(1);
  });

  it('computes pod and container gauges at scrape time from the last status of each pod', async () => {
    addPod('web');
    addPod('done');
    addPod('new');
    const running: PodStatus = {
      phase: 'Running',
      podIP: '10.88.0.2',
      containerStatuses: [
        {
          name: 'app',
          image: 'busybox',
          imageID: '',
          ready: true,
          restartCount: 1,
          state: { running: {} },
          lastState: { terminated: { exitCode: 1, containerID: 'containerd://a' } },
        },
      ],
    };
    const succeeded: PodStatus = {
      phase: 'Succeeded',
      podIP: '10.88.0.3',
      containerStatuses: [
        {
          name: 'app',
          image: 'busybox',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, containerID: 'containerd://b' } },
          lastState: {},
        },
      ],
    };
    trace.record({ type: 'status.update', ...ref('web'), status: running });
    trace.record({ type: 'status.update', ...ref('done'), status: succeeded });
    let m = await scrape();
    expect(m.get('kubelet_running_pods')).toBe(1);
    expect(m.get('kubelet_running_containers{container_state="running"}')).toBe(1);
    expect(m.get('kubelet_running_containers{container_state="exited"}')).toBe(2);
    expect(m.get('kubelet_desired_pods{static=""}')).toBe(3);
    expect(m.get('kubelet_active_pods{static=""}')).toBe(2);

    // the pod leaves the engine: gauges follow at the next scrape
    engine.finishTermination('uid-web');
    m = await scrape();
    expect(m.get('kubelet_running_pods')).toBe(0);
    expect(m.get('kubelet_desired_pods{static=""}')).toBe(2);
  });

  it('counts working pods by lifecycle and whether their config is still desired', async () => {
    addPod('web');
    trace.record({ type: 'config.update', ...ref('web'), op: 'ADD', source: 'api' });
    trace.record({ type: 'worker.state', ...ref('web'), from: null, to: 'SyncPod' });
    trace.record({ type: 'config.update', ...ref('gone'), op: 'ADD', source: 'api' });
    trace.record({ type: 'worker.state', ...ref('gone'), from: 'SyncPod', to: 'TerminatingPod' });
    trace.record({ type: 'worker.state', ...ref('orphan'), from: null, to: 'TerminatingPod' });
    trace.record({ type: 'worker.state', ...ref('old'), from: null, to: 'Finished' });
    trace.record({ type: 'worker.state', ...ref('old'), from: 'Finished', to: 'Forgotten' });
    const m = await scrape();
    expect(m.get('kubelet_working_pods{lifecycle="sync",config="desired",static=""}')).toBe(1);
    expect(m.get('kubelet_working_pods{lifecycle="terminating",config="orphan",static=""}')).toBe(1);
    expect(m.get('kubelet_working_pods{lifecycle="terminating",config="runtime_only",static=""}')).toBe(1);
    expect(m.get('kubelet_working_pods{lifecycle="terminated",config="desired",static=""}')).toBe(0);
  });

  it('keeps one registry per app and stops counting once the app is closed', async () => {
    const other = await createHttpApp({ engine, trace, clock });
    trace.record({ type: 'runtime.call', method: 'Version', durationMs: 1 });
    expect((await scrape(other)).get('kubelet_runtime_operations_total{operation_type="version"}')).toBe(1);
    expect((await scrape()).get('kubelet_runtime_operations_total{operation_type="version"}')).toBe(1);
    await other.close();
    const metrics = new KubeletMetrics(trace, engine);
    metrics.close();
    trace.record({ type: 'runtime.call', method: 'Version', durationMs: 1 });
    expect(await metrics.metrics()).not.toContain('operation_type="version"');
    expect((await scrape()).get('kubelet_runtime_operations_total{operation_type="version"}')).toBe(2);
  });
});

describe('operationType', () => {
  it('names CRI methods as instrumented_services.go does', () => {
    expect(operationType('PodSandboxStatus')).toBe('podsandbox_status');
    expect(operationType('ListContainers')).toBe('list_containers');
    expect(operationType('GetContainerEvents')).toBe('get_container_events');
    expect(operationType('ExecSync')).toBe('exec_sync');
  });
});
