/**
 * Test fixtures for the whole engine on an in-process simulated node and a FakeClock: the Kubelet facade with
 * its real runtime manager, PLEG and pod workers (jitter 0, so requeues are exact), and a one-container pod.
 * Tests and benchmarks only.
 */
import { type Container, type Pod, rfc3339 } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { SimRuntime } from '../../sim/sim-runtime.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import type { ContainerStatusRT } from '../container/runtime.ts';
import { Kubelet } from '../kubelet.ts';

export function simKubelet(config: Partial<KubeletConfiguration> = {}, traceCapacity?: number) {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock, traceCapacity);
  const sim = new SimRuntime({ clock });
  const kl = new Kubelet({
    cri: sim,
    clock,
    trace,
    config,
    runtimeEndpoint: 'sim',
    simulated: true,
    random: () => 0,
  });
  return { clock, trace, sim, kl };
}

/** A pod with one busybox container `app` running `sh -c <script>`. */
export function scriptPod(
  clock: FakeClock,
  meta: { uid: string; name: string },
  script: string,
  spec: Partial<Pod['spec']> = {},
  container: Partial<Container> = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...meta, namespace: 'default', creationTimestamp: rfc3339(clock.now()) },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'busybox',
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', script],
          ...container,
        },
      ],
      ...spec,
    },
  };
}

/** A kubecontainer status of one container instance, zero everywhere but what the test names. */
export function containerStatusRT(
  fields: Pick<ContainerStatusRT, 'id' | 'name' | 'state'> & Partial<ContainerStatusRT>,
): ContainerStatusRT {
  return {
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    image: '',
    imageRef: '',
    hash: '',
    restartCount: 0,
    reason: '',
    message: '',
    ...fields,
  };
}
