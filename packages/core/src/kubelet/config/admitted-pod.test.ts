/**
 * The pods the engine holds: PodConfig admits them (uid required, namespace filled in), and the Kubelet
 * facade serves them with uid, name and namespace set.
 */
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import type { CriRuntime } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { Kubelet } from '../kubelet.ts';
import { FakeRecorder, FakeRuntime } from '../testing/fake-runtime.ts';
import { admittedPod } from './admitted-pod.ts';
import { PodConfig } from './config.ts';

const pod = (metadata: Pod['metadata']): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata,
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
});

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const ops = () => trace.since(0, (e) => e.type === 'config.update').length;
  return { clock, trace, config: new PodConfig(clock, trace), ops };
}

describe('admitted pods', () => {
  it('a complete pod is held as the same object', () => {
    const p = pod({ name: 'web', namespace: 'prod', uid: 'u1' });
    expect(admittedPod(p)).toBe(p);
  });

  it('a pod without a namespace is held in the default one', () => {
    const { config } = setup();
    config.add(pod({ name: 'web', uid: 'u1' }));
    expect(config.get('u1')?.metadata.namespace).toBe('default');
  });

  it('an update without metadata.uid is refused as such, and nothing reaches the loop', () => {
    const { config, ops } = setup();
    config.add(pod({ name: 'web', namespace: 'default', uid: 'u1' }));
    expect(() => config.update(pod({ name: 'web', namespace: 'default' }))).toThrow(
      'pod has no metadata.uid',
    );
    expect(ops()).toBe(1);
    expect(config.updates.length).toBe(1);
  });

  it('the Kubelet serves a pod posted without a namespace under the default one, uid and name set', () => {
    const { clock, trace } = setup();
    const kl = new Kubelet(
      { cri: {} as CriRuntime, clock, trace, runtimeEndpoint: 'fake', simulated: true, random: () => 0 },
      { runtime: new FakeRuntime(clock), recorder: new FakeRecorder() },
    );
    kl.addPod(pod({ name: 'web', uid: 'u1' }));
    const [held] = kl.getPods();
    expect(held?.metadata).toMatchObject({ uid: 'u1', name: 'web', namespace: 'default' });
    expect(kl.getPod('default', 'web')?.metadata.uid).toBe('u1');
    expect(kl.getPodByUID('u1')?.status?.phase).toBe('Pending');
  });
});
