import { describe, expect, it } from 'vitest';
import type { Probe } from '../../api/v1.ts';
import { execResult, makePod, ProberHarness, runningStatus } from './testing.ts';

const exec = (extra: Partial<Probe> = {}): Probe => ({
  exec: { command: ['cat', '/tmp/healthy'] },
  timeoutSeconds: 1,
  periodSeconds: 10,
  successThreshold: 1,
  failureThreshold: 3,
  ...extra,
});

const catFails = async () => execResult(1, '', "cat: can't open '/tmp/healthy': No such file or directory\n");

describe('probe worker', () => {
  it('publishes the initial result of each probe type when it first sees the container', async () => {
    const h = new ProberHarness();
    const probe = exec({ initialDelaySeconds: 60 });
    h.addPod(
      makePod([
        { name: 'app', image: 'busybox', livenessProbe: probe, readinessProbe: probe, startupProbe: probe },
      ]),
    );
    await h.clock.step(0);

    expect(h.manager.livenessManager.get('containerd://app-1')).toBe('Success');
    expect(h.manager.readinessManager.get('containerd://app-1')).toBe('Failure');
    expect(h.manager.startupManager.get('containerd://app-1')).toBe('Unknown');
    expect(h.updates.map((u) => `${u.probeType}=${u.result}`).sort()).toEqual([
      'Liveness=Success',
      'Readiness=Failure',
      'Startup=Unknown',
    ]);
    expect(h.execCalls).toHaveLength(0); // still inside initialDelaySeconds
  });

  it('publishes Failure once, after failureThreshold failures in a row, then holds until the container ID changes', async () => {
    const h = new ProberHarness();
    h.exec = catFails;
    h.addPod(makePod([{ name: 'app', image: 'busybox', livenessProbe: exec() }]));
    await h.clock.step(60_000);

    expect(h.execTimes()).toEqual([0, 10, 20]); // on hold after the third failure
    expect(h.updates.map((u) => [u.result, (u.at - h.start) / 1000])).toEqual([
      ['Success', 0],
      ['Failure', 20],
    ]);
    expect(h.events).toHaveLength(3);

    // The kubelet restarts the container: a new ID lifts the hold and starts from the initial value.
    h.container('app').containerID = 'containerd://app-2';
    h.exec = async () => execResult(0);
    await h.clock.step(10_000);
    expect(h.manager.livenessManager.get('containerd://app-1')).toBeUndefined();
    expect(h.manager.livenessManager.get('containerd://app-2')).toBe('Success');
    expect(h.execCalls.at(-1)?.containerID).toBe('app-2');
    expect(h.execTimes()).toEqual([0, 10, 20, 70]);
  });

  it('flips back to Success only after successThreshold successes in a row', async () => {
    const h = new ProberHarness();
    const answers = [0, 0, 1, 0, 0];
    h.exec = async () => execResult(answers.shift() ?? 0);
    h.addPod(
      makePod([
        { name: 'app', image: 'busybox', readinessProbe: exec({ successThreshold: 2, failureThreshold: 1 }) },
      ]),
    );
    await h.clock.step(40_000);

    expect(h.updates.map((u) => [u.result, (u.at - h.start) / 1000])).toEqual([
      ['Failure', 0], // initial value
      ['Success', 10], // second success in a row
      ['Failure', 20], // failureThreshold 1
      ['Success', 40],
    ]);
  });

  it('waits out initialDelaySeconds, counted from the container start', async () => {
    const h = new ProberHarness();
    h.addPod(makePod([{ name: 'app', image: 'busybox', livenessProbe: exec({ initialDelaySeconds: 15 }) }]));
    await h.clock.step(30_000);
    expect(h.execTimes()).toEqual([20, 30]);
  });

  it('spreads the first run over one period only while the manager is young', async () => {
    const young = new ProberHarness(() => 0.5);
    young.addPod(makePod([{ name: 'app', image: 'busybox', livenessProbe: exec() }]));
    await young.clock.step(16_000);
    expect(young.execTimes()).toEqual([5, 15]);

    const old = new ProberHarness(() => 0.5);
    await old.clock.step(60_000);
    old.addPod(makePod([{ name: 'app', image: 'busybox', livenessProbe: exec() }]));
    await old.clock.step(0);
    expect(old.execTimes()).toEqual([60]);
  });

  it('exits when the pod is terminal, dropping its result and its timers', async () => {
    const h = new ProberHarness();
    h.addPod(makePod([{ name: 'app', image: 'busybox', readinessProbe: exec() }]));
    await h.clock.step(0);
    expect(h.manager.workerCount()).toBe(1);

    h.status().phase = 'Succeeded';
    await h.clock.step(10_000);
    expect(h.manager.workerCount()).toBe(0);
    expect(h.manager.readinessManager.get('containerd://app-1')).toBeUndefined();
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('marks a container that is not running as Failure, and exits only if it will never run again', async () => {
    const h = new ProberHarness();
    const pod = makePod([{ name: 'app', image: 'busybox', readinessProbe: exec() }], {
      restartPolicy: 'Never',
    });
    h.addPod(pod);
    h.exec = async () => execResult(0);
    await h.clock.step(0);
    expect(h.manager.readinessManager.get('containerd://app-1')).toBe('Success');

    const c = h.container('app');
    c.state = { waiting: { reason: 'ContainerCreating' } };
    await h.clock.step(10_000);
    expect(h.manager.readinessManager.get('containerd://app-1')).toBe('Failure');
    expect(h.manager.workerCount()).toBe(1);

    c.state = { terminated: { exitCode: 0, reason: 'Completed' } };
    await h.clock.step(10_000);
    expect(h.manager.workerCount()).toBe(0);
    expect(h.updates.map((u) => u.result)).toEqual(['Failure', 'Success', 'Failure']);
  });

  it('sets liveness to Success and stops when the pod is being deleted', async () => {
    const h = new ProberHarness();
    h.exec = catFails;
    const pod = makePod([{ name: 'app', image: 'busybox', livenessProbe: exec() }]);
    h.addPod(pod);
    await h.clock.step(0);
    h.pods.set('uid-1', {
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: new Date(h.clock.now()).toISOString() },
    });
    await h.clock.step(10_000);
    expect(h.execTimes()).toEqual([0]);
    expect(h.manager.workerCount()).toBe(0);
  });

  it('runs the startup probe until the container has started, and liveness only after', async () => {
    const h = new ProberHarness();
    h.addPod(
      makePod([
        { name: 'app', image: 'busybox', startupProbe: exec({ periodSeconds: 5 }), livenessProbe: exec() },
      ]),
    );
    h.exec = async (call) => execResult(call.at - h.start >= 10_000 ? 0 : 1);
    await h.clock.step(12_000);
    // startup at 0, 5 (failures), 10 (success → published, hold); liveness waited for Started
    expect(h.manager.startupManager.get('containerd://app-1')).toBe('Success');
    expect(h.execTimes()).toEqual([0, 5, 10]);

    // The status manager now shows the container started: liveness probes, startup stays quiet.
    h.container('app').started = true;
    await h.clock.step(20_000);
    expect(h.execTimes()).toEqual([0, 5, 10, 20, 30]);
  });

  it('finds sidecars among the init container statuses', async () => {
    const h = new ProberHarness();
    const pod = makePod([{ name: 'app', image: 'busybox' }], {
      initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always', readinessProbe: exec() }],
    });
    h.addPod(pod);
    h.status().initContainerStatuses = [runningStatus('proxy', 'containerd://proxy-1', h.clock.now())];
    await h.clock.step(0);
    expect(h.manager.readinessManager.get('containerd://proxy-1')).toBe('Success');
    expect(h.execCalls[0]?.containerID).toBe('proxy-1');
  });
});
