import { describe, expect, it } from 'vitest';
import type { PodStatus, Probe } from '../../api/v1.ts';
import { probeUpdateSyncStatus } from './prober-manager.ts';
import { RESULTS_UPDATES_CAPACITY, ResultsManager } from './results-manager.ts';
import { execResult, makePod, ProberHarness, runningStatus } from './testing.ts';

const probe: Probe = {
  exec: { command: ['check'] },
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
};

/** A fresh status as generateAPIPodStatus would hand it over: ready false, started unset. */
function fresh(h: ProberHarness): PodStatus {
  return structuredClone(h.status());
}

describe('ProberManager.updatePodStatus', () => {
  it('makes a container ready only once its readiness probe succeeds', async () => {
    const h = new ProberHarness();
    h.exec = async () => execResult(1, 'not yet');
    const pod = makePod([
      { name: 'app', image: 'nginx', readinessProbe: probe },
      { name: 'log', image: 'busybox' },
    ]);
    h.addPod(pod);
    await h.clock.step(0);

    let s = fresh(h);
    h.manager.updatePodStatus(pod, s);
    expect(s.containerStatuses?.map((c) => [c.name, c.started, c.ready])).toEqual([
      ['app', true, false],
      ['log', true, true], // no readiness probe: ready once started
    ]);

    h.exec = async () => execResult(0);
    await h.clock.step(10_000);
    s = fresh(h);
    h.manager.updatePodStatus(pod, s);
    expect(s.containerStatuses?.[0]?.ready).toBe(true);
  });

  it('keeps a container unstarted and unready until its startup probe succeeds', async () => {
    const h = new ProberHarness();
    h.exec = async () => execResult(1);
    const pod = makePod([{ name: 'app', image: 'nginx', startupProbe: probe }]);
    h.addPod(pod);
    await h.clock.step(0);
    const s = fresh(h);
    h.manager.updatePodStatus(pod, s);
    expect(s.containerStatuses?.[0]).toMatchObject({ started: false, ready: false });
  });

  it('triggers a readiness probe at once when the status has no result yet, and restarts the period', async () => {
    const h = new ProberHarness();
    h.exec = async () => execResult(1);
    const pod = makePod([{ name: 'app', image: 'nginx', readinessProbe: probe }]);
    h.addPod(pod);
    await h.clock.step(4_000);
    expect(h.execTimes()).toEqual([0]);

    h.manager.updatePodStatus(pod, fresh(h)); // at 4 s: Failure is not Success → run now
    await h.clock.step(16_000);
    expect(h.execTimes()).toEqual([0, 4, 14]);
  });

  it('marks a regular init container ready once it exited 0', () => {
    const h = new ProberHarness();
    const pod = makePod([{ name: 'app', image: 'nginx' }], {
      initContainers: [{ name: 'init', image: 'busybox' }],
    });
    const s: PodStatus = {
      phase: 'Pending',
      initContainerStatuses: [
        {
          ...runningStatus('init', 'containerd://i', 0),
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ],
    };
    h.manager.updatePodStatus(pod, s);
    expect(s.initContainerStatuses?.[0]).toMatchObject({ ready: true, started: false });
  });
});

describe('ProberManager lifecycle', () => {
  it('stops liveness and startup workers on termination, everything on removal', async () => {
    const h = new ProberHarness();
    const pod = makePod([
      { name: 'app', image: 'nginx', livenessProbe: probe, readinessProbe: probe, startupProbe: probe },
    ]);
    h.addPod(pod);
    await h.clock.step(0);
    expect(h.manager.workerCount()).toBe(3);

    h.manager.stopLivenessAndStartup(pod);
    await h.clock.step(0);
    expect(h.manager.getWorker('uid-1', 'app', 'Readiness')).toBeDefined();
    expect(h.manager.workerCount()).toBe(1);
    expect(h.manager.livenessManager.get('containerd://app-1')).toBeUndefined();

    h.manager.removePod(pod);
    await h.clock.step(0);
    expect(h.manager.workerCount()).toBe(0);
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('addPod again keeps the running workers; cleanupPods stops pods no longer desired', async () => {
    const h = new ProberHarness();
    const a = makePod([{ name: 'app', image: 'nginx', livenessProbe: probe }]);
    const b = {
      ...makePod([{ name: 'app', image: 'nginx', livenessProbe: probe }]),
      metadata: { name: 'b', uid: 'uid-2' },
    };
    h.addPod(a);
    h.addPod(b);
    h.manager.addPod(a);
    await h.clock.step(0);
    expect(h.manager.workerCount()).toBe(2);
    expect(h.execCalls).toHaveLength(2);

    h.manager.cleanupPods(new Set(['uid-2']));
    await h.clock.step(10_000);
    expect(h.manager.workerCount()).toBe(1);
    expect(h.manager.getWorker('uid-2', 'app', 'Liveness')).toBeDefined();
  });

  it('counts prober_probe_total per worker', async () => {
    const h = new ProberHarness();
    h.addPod(makePod([{ name: 'app', image: 'nginx', livenessProbe: probe }]));
    await h.clock.step(20_000);
    expect(h.manager.probeTotals()).toEqual([
      {
        labels: {
          probe_type: 'Liveness',
          result: 'successful',
          container: 'app',
          pod: 'web',
          namespace: 'default',
          pod_uid: 'uid-1',
        },
        value: 3,
      },
    ]);
  });

  it('tells the sync loop which updates need a sync', () => {
    const u = { containerID: 'c', podUID: 'p' };
    expect(probeUpdateSyncStatus({ ...u, probeType: 'Liveness', result: 'Success' })).toBeUndefined();
    expect(probeUpdateSyncStatus({ ...u, probeType: 'Liveness', result: 'Failure' })).toBe('unhealthy');
    expect(probeUpdateSyncStatus({ ...u, probeType: 'Readiness', result: 'Failure' })).toBe('');
    expect(probeUpdateSyncStatus({ ...u, probeType: 'Startup', result: 'Success' })).toBe('started');
  });
});

describe('ResultsManager', () => {
  it('sends an update only when a result changes, whichever form of the container ID is used', () => {
    const m = new ResultsManager('Readiness');
    const pod = makePod([]);
    m.set('containerd://abc', 'Failure', pod);
    m.set('abc', 'Failure', pod);
    m.set('containerd://abc', 'Success', pod);
    expect(m.get('abc')).toBe('Success');
    expect(m.updates.length).toBe(2);
    expect(m.updates.tryReceive()?.value).toEqual({
      containerID: 'containerd://abc',
      result: 'Failure',
      podUID: 'uid-1',
    });
    m.remove('containerd://abc');
    expect(m.get('abc')).toBeUndefined();
  });

  it('holds back updates beyond its capacity until the consumer catches up, losing none', async () => {
    const m = new ResultsManager('Liveness');
    const pod = makePod([]);
    for (let i = 0; i < RESULTS_UPDATES_CAPACITY + 5; i++) m.set(`c${i}`, 'Success', pod);
    expect(m.updates.length).toBe(RESULTS_UPDATES_CAPACITY);
    const got: string[] = [];
    for (let i = 0; i < RESULTS_UPDATES_CAPACITY + 5; i++)
      got.push((await m.updates.receive())?.containerID ?? '');
    expect(got).toEqual(Array.from({ length: RESULTS_UPDATES_CAPACITY + 5 }, (_, i) => `c${i}`));
  });
});
