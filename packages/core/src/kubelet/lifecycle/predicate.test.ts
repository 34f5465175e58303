import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { kubeletHarness } from '../testing/kubelet-harness.ts';
import { OutOfPods, PredicateAdmitHandler } from './predicate.ts';

const stub = (uid: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { uid, name: uid, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
});

describe('PredicateAdmitHandler', () => {
  it('admits while one more pod fits, then refuses with OutOfpods and the kubelet message', () => {
    const h = new PredicateAdmitHandler(2);
    expect(h.admit({ pod: stub('c'), otherPods: [stub('a')] })).toEqual({ admit: true });
    expect(h.admit({ pod: stub('c'), otherPods: [stub('a'), stub('b')] })).toEqual({
      admit: false,
      reason: 'OutOfpods',
      message: "Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    });
    expect(new PredicateAdmitHandler(0).admit({ pod: stub('a'), otherPods: [] })).toMatchObject({
      admit: false,
      message: "Node didn't have enough resource: pods, requested: 1, used: 0, capacity: 0",
    });
  });
});

describe('HandlePodAdditions admission (--max-pods)', () => {
  const REJECTED_110 =
    "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110";

  it('rejects the 111th pod with the default 110: Failed, OutOfpods, a Warning, no worker, no sandbox', async () => {
    const h = kubeletHarness();
    h.kl.start();
    for (let i = 0; i < 110; i++) h.kl.addPod(h.pod(`p${i}`, [h.container('app')]));
    h.kl.addPod(h.pod('extra', [h.container('app')]));
    const running = () => h.kl.getPods().filter((p) => p.status?.phase === 'Running').length;
    expect(await h.clock.stepUntil(() => running() === 110, 10_000)).toBe(true);

    const st = h.kl.getPodByUID('uid-extra')?.status;
    expect(st).toMatchObject({
      phase: 'Failed',
      reason: OutOfPods,
      message: REJECTED_110,
      qosClass: 'BestEffort',
    });
    expect(h.events('extra').map((e) => [e.type, e.reason, e.message, e.count])).toEqual([
      [
        'Warning',
        'OutOfpods',
        "Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110",
        1,
      ],
    ]);
    expect(h.kl.podWorkers.stateOf('uid-extra')).toBeUndefined();
    expect(h.cri.called.filter((c) => c === 'RunPodSandbox')).toHaveLength(110);

    // a rejected pod counts against nothing: the next one is refused with the same `used`
    h.kl.addPod(h.pod('extra2', [h.container('app')]));
    expect(
      await h.clock.stepUntil(() => h.kl.getPodByUID('uid-extra2')?.status?.phase === 'Failed', 3_000),
    ).toBe(true);
    expect(h.kl.getPodByUID('uid-extra2')?.status?.message).toBe(REJECTED_110);

    // housekeeping does not start it either, and a delete removes it
    await h.kl.handlePodCleanups();
    expect(h.kl.podWorkers.stateOf('uid-extra')).toBeUndefined();
    h.kl.deletePod('uid-extra');
    expect(await h.clock.stepUntil(() => h.kl.getPodByUID('uid-extra') === undefined, 10_000)).toBe(true);
    expect(h.cri.called.filter((c) => c === 'RunPodSandbox')).toHaveLength(110);

    // once a deleted pod is gone there is room again
    h.kl.deletePod('uid-p0', 0);
    expect(await h.clock.stepUntil(() => h.kl.getPodByUID('uid-p0') === undefined, 10_000)).toBe(true);
    h.kl.addPod(h.pod('late', [h.container('app')]));
    expect(
      await h.clock.stepUntil(() => h.kl.getPodByUID('uid-late')?.status?.phase === 'Running', 10_000),
    ).toBe(true);
    await h.kl.stop();
  });

  it('at boot, with more stored pods than maxPods, admits the oldest and rejects the rest', async () => {
    const h = kubeletHarness({ maxPods: 3 });
    const pods = ['a', 'b', 'c', 'd', 'e'].map((n) => {
      const p = h.pod(n, [h.container('app')]);
      h.clock.step(1_000); // one second apart: creationTimestamp orders them a < b < ... < e
      return p;
    });
    // as the server restores its store: every pod added back, oldest first, before the loop starts
    for (const p of pods) h.kl.addPod(p);
    h.kl.start();
    const phase = (n: string) => h.kl.getPodByUID(`uid-${n}`)?.status?.phase;
    expect(await h.clock.stepUntil(() => ['a', 'b', 'c'].every((n) => phase(n) === 'Running'), 10_000)).toBe(
      true,
    );
    expect(['d', 'e'].map((n) => h.kl.getPodByUID(`uid-${n}`)?.status?.message)).toEqual([
      "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
      "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    ]);
    expect(['d', 'e'].map((n) => h.kl.podWorkers.stateOf(`uid-${n}`))).toEqual([undefined, undefined]);
    await h.kl.stop();
  });
});
