import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { defaultKubeletConfiguration } from '../configuration.ts';
import { Recorder } from '../events/recorder.ts';
import { FakeCriRuntime } from '../kuberuntime/fake-cri-runtime.ts';
import { tracedCall } from '../kuberuntime/instrumented-services.ts';
import { defaultPullPolicy, evalCRIPullErr, ImageManager } from './image-manager.ts';
import { applyDefaultImageTag } from './image-ref.ts';

describe('applyDefaultImageTag', () => {
  it.each([
    ['busybox', 'busybox:latest'],
    ['busybox:1.36', 'busybox:1.36'],
    ['localhost:5000/x', 'localhost:5000/x:latest'],
    ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause:3.10'],
    [`busybox@sha256:${'a'.repeat(64)}`, `busybox@sha256:${'a'.repeat(64)}`],
  ])('%s → %s', (input, want) => {
    expect(applyDefaultImageTag(input)).toEqual({ image: want });
  });

  it('rejects bad references with the parser message', () => {
    expect(applyDefaultImageTag('Bad Name!!')).toEqual({
      error: 'couldn\'t parse image name "Bad Name!!": invalid reference format',
    });
    expect(applyDefaultImageTag('BusyBox')).toEqual({
      error:
        'couldn\'t parse image name "BusyBox": invalid reference format: repository name (library/BusyBox) must be lowercase',
    });
  });
});

describe('image pull helpers', () => {
  it('default pull policy follows the API defaulting', () => {
    expect(defaultPullPolicy('busybox')).toBe('Always');
    expect(defaultPullPolicy('busybox:latest')).toBe('Always');
    expect(defaultPullPolicy('busybox:1.36')).toBe('IfNotPresent');
    expect(defaultPullPolicy('localhost:5000/busybox')).toBe('Always');
  });

  it('evalCRIPullErr recognises the CRI error tokens', () => {
    expect(evalCRIPullErr('x:1', 'RegistryUnavailable: dns down')).toEqual({
      error: 'RegistryUnavailable',
      message: 'image pull failed for x:1 because the registry is unavailable: dns down',
    });
    expect(evalCRIPullErr('x:1', 'rpc error: boom')).toEqual({
      error: 'ErrImagePull',
      message: 'rpc error: boom',
    });
  });
});

describe('ImageManager', () => {
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: {
      containers: [
        { name: 'a', image: 'app:1' },
        { name: 'b', image: 'app:2' },
      ],
    },
  };

  it('serialises pulls: the second pull starts after the first ends', async () => {
    const clock = new FakeClock();
    const cri = new FakeCriRuntime(clock);
    cri.registry.add('app:1');
    cri.registry.add('app:2');
    const trace = new TraceRecorder(clock);
    const im = new ImageManager({
      cri,
      clock,
      trace,
      recorder: new Recorder(clock, trace, 'n'),
      config: defaultKubeletConfiguration,
      call: tracedCall(clock, trace),
    });
    const [a, b] = await Promise.all(
      pod.spec.containers.map((c) => im.ensureImageExists(pod, c, `spec.containers{${c.name}}`, undefined)),
    );
    expect(a?.imageRef).toBe('sha256:app:1');
    expect(b?.imageRef).toBe('sha256:app:2');
    const pulls = cri.called.filter((c) => c === 'PullImage' || c === 'ImageStatus');
    // status(a), status(b), then pull(a) + size(a) strictly before pull(b) + size(b)
    expect(pulls).toEqual([
      'ImageStatus',
      'ImageStatus',
      'PullImage',
      'ImageStatus',
      'PullImage',
      'ImageStatus',
    ]);
  });
});
