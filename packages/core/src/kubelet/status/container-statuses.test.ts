import { describe, expect, it } from 'vitest';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { ReasonCache } from '../reason-cache.ts';
import { containerStatusRT } from '../testing/sim-kubelet.ts';
import { convertToAPIContainerStatuses } from './container-statuses.ts';

const pod: AdmittedPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
};

const status = (runtimeName: string | undefined, state: 'running' | 'exited'): PodStatusRT => ({
  id: 'u1',
  name: 'p',
  namespace: 'default',
  ips: [],
  sandboxStatuses: [],
  containerStatuses: [
    containerStatusRT({
      id: 'abc123',
      name: 'app',
      state,
      startedAt: 1_000,
      finishedAt: state === 'exited' ? 2_000 : 0,
    }),
  ],
  timestamp: 0,
  ...(runtimeName ? { runtimeName } : {}),
});

describe('container IDs in the API status', () => {
  it('carry the runtime name as the kubelet writes them (containerd://<id>), in state and in terminated', () => {
    const [running] = convertToAPIContainerStatuses(
      pod,
      status('containerd', 'running'),
      [],
      pod.spec.containers,
      false,
      false,
      new ReasonCache(),
    );
    expect(running?.containerID).toBe('containerd://abc123');
    const [exited] = convertToAPIContainerStatuses(
      pod,
      status('containerd', 'exited'),
      [],
      pod.spec.containers,
      false,
      false,
      new ReasonCache(),
    );
    expect(exited?.state.terminated?.containerID).toBe('containerd://abc123');
  });

  it('stay bare while the runtime has not told its name', () => {
    const [running] = convertToAPIContainerStatuses(
      pod,
      status(undefined, 'running'),
      [],
      pod.spec.containers,
      false,
      false,
      new ReasonCache(),
    );
    expect(running?.containerID).toBe('abc123');
  });
});
