/**
 * Test support for the durable write path (lifecycle.test.ts, lifecycle-full-disk.test.ts): the engine, not
 * started (its pod config is what the API acts on), and the pods written through it.
 */
import { Kubelet, SimRuntime, type TraceRecorder } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api/v1';
import type { FakeClock } from '@syncscope/core/clock';

/** A Kubelet over a simulated runtime, not started. */
export function idleKubelet(clock: FakeClock, trace: TraceRecorder): Kubelet {
  return new Kubelet({
    cri: new SimRuntime({ clock }),
    clock,
    trace,
    runtimeEndpoint: 'sim',
    simulated: true,
  });
}

/** Pod default/`name`: one busybox container, a 20 s grace period. */
export function pod(name: string, uid: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, creationTimestamp: '2026-01-01T12:00:00Z' },
    spec: {
      containers: [{ name: 'app', image: 'busybox' }],
      terminationGracePeriodSeconds: 20,
    } as Pod['spec'],
  };
}
