/**
 * Synthetic but realistic trace payloads for N pods: the mix a busy node produces (CRI calls, worker and sync
 * events, PLEG events, status updates, Events), each pod's events in lifecycle order. Used to load the
 * WebSocket stream (P4) and to fill the trace the dashboard draws (P5).
 */
import type { PodStatus } from '@syncscope/core/api/v1';
import type { TracePayload } from '@syncscope/core/trace';

export interface SynthPod {
  uid: string;
  name: string;
}

const METHODS = ['PodSandboxStatus', 'ContainerStatus', 'ListContainers', 'ListPodSandbox', 'ImageStatus'];

/** The k-th event of a pod's life: a cycle of 10 kinds, so every pod's timeline has every row. */
export function podEvent(p: SynthPod, k: number): TracePayload {
  const ref = { podUID: p.uid, pod: `default/${p.name}` };
  const c = `c${k % 2}`;
  const containerID = `containerd://${p.uid.slice(0, 8)}${k % 2}`;
  switch (k % 10) {
    case 0:
      return { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...ref };
    case 1:
      return { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...ref };
    case 2:
      return {
        type: 'runtime.call',
        method: METHODS[k % METHODS.length] as string,
        durationMs: 0.6,
        ...ref,
        container: c,
      };
    case 3:
      return { type: 'sync.result', workType: 'SyncPod', actions: [], durationMs: 3.2, ...ref };
    case 4:
      return { type: 'pleg.event', event: 'ContainerStarted', containerID, containerName: c, ...ref };
    case 5:
      return { type: 'probe.result', container: c, probe: 'Readiness', result: 'Success', ...ref };
    case 6:
      return {
        type: 'k8s.event',
        eventType: 'Normal',
        reason: 'Started',
        message: `Started container ${c}`,
        count: 1,
        fieldPath: `spec.containers{${c}}`,
        ...ref,
      };
    case 7:
      return { type: 'status.update', status: runningStatus(p), ...ref };
    case 8:
      return { type: 'runtime.call', method: 'ExecSync', durationMs: 19.6, ...ref, container: c };
    default:
      return { type: 'worker.state', from: 'SyncPod', to: 'SyncPod', ...ref };
  }
}

/** A Running status with both containers as the status manager writes it (every field the API always has). */
function runningStatus(p: SynthPod): PodStatus {
  const at = '2026-01-01T00:00:00Z';
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready', 'PodScheduled'].map(
      (type) => ({
        type,
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: at,
      }),
    ),
    hostIP: '10.0.0.1',
    podIP: '10.88.0.2',
    startTime: at,
    qosClass: 'BestEffort',
    containerStatuses: ['c0', 'c1'].map((name, i) => ({
      name,
      ready: true,
      restartCount: 0,
      image: 'docker.io/library/busybox:latest',
      imageID: 'docker.io/library/busybox@sha256:0000',
      containerID: `containerd://${p.uid.slice(0, 8)}${i}`,
      started: true,
      state: { running: { startedAt: at } },
      lastState: {},
    })),
  } as PodStatus;
}

export function synthPods(n: number): SynthPod[] {
  return Array.from({ length: n }, (_, i) => ({
    uid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    name: `bench-${String(i).padStart(4, '0')}`,
  }));
}
