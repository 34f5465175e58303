import { describe, expect, it } from 'vitest';
import { kubeletHarness } from './testing/kubelet-harness.ts';

describe('probes in the sync loop (whole kubelet, fake CRI, fake clock)', () => {
  it('an exec liveness failure kills and restarts the container in the next sync', async () => {
    const h = kubeletHarness();
    const probe = { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 1 };
    const pod = h.pod('live', [h.container('app', { livenessProbe: probe })]);
    h.kl.start();
    h.kl.addPod(pod);
    expect(
      await h.clock.stepUntil(() => h.status('uid-live', 'app')?.state.running !== undefined, 10_000),
    ).toBe(true);
    const first = h.instances('app')[0] as string;
    h.setExec((id) => (id === first ? 1 : 0)); // the first instance turns unhealthy
    expect(await h.clock.stepUntil(() => h.status('uid-live', 'app')?.restartCount === 1, 10_000)).toBe(true);

    const killing = h.events('live').filter((e) => e.reason === 'Killing');
    expect(killing.map((e) => e.message)).toEqual(['Container app failed liveness probe, will be restarted']);
    expect(h.events('live').some((e) => e.reason === 'Unhealthy')).toBe(true);
    expect(h.traced('loop.iteration').some((e) => e.source === 'probe' && e.pods === 1)).toBe(true);
    expect(h.cri.containers.get(first)?.state).toBe('CONTAINER_EXITED');
    expect(h.status('uid-live', 'app')?.state.running).toBeDefined();
    // the new instance is probed and healthy: no further kill
    await h.clock.step(5_000);
    expect(h.events('live').filter((e) => e.reason === 'Killing')).toHaveLength(1);
    await h.kl.stop();
  });

  it('readiness decides ready and the Ready condition; deletion stops every probe worker', async () => {
    const h = kubeletHarness();
    let ready = false;
    h.setExec(() => (ready ? 0 : 1));
    const probe = { exec: { command: ['true'] }, periodSeconds: 1 };
    h.kl.start();
    h.kl.addPod(h.pod('rd', [h.container('app', { readinessProbe: probe })]));
    expect(
      await h.clock.stepUntil(() => h.status('uid-rd', 'app')?.state.running !== undefined, 10_000),
    ).toBe(true);
    await h.clock.step(3_000);
    const readyCond = () => h.kl.getPodByUID('uid-rd')?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(h.status('uid-rd', 'app')?.ready).toBe(false);
    expect(readyCond()?.status).toBe('False');
    expect(h.kl.probeManager.workerCount()).toBe(1);

    ready = true;
    expect(await h.clock.stepUntil(() => readyCond()?.status === 'True', 5_000)).toBe(true);
    expect(h.status('uid-rd', 'app')?.ready).toBe(true);

    h.kl.deletePod('uid-rd', 2);
    expect(await h.clock.stepUntil(() => h.kl.getPodByUID('uid-rd') === undefined, 20_000)).toBe(true);
    expect(h.kl.probeManager.workerCount()).toBe(0);
    await h.kl.stop();
    expect(h.clock.pendingTimers).toBe(0);
  });
});
