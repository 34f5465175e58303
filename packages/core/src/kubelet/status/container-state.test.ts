/**
 * What a container's status says, and the pod phase the status keeps, as generateAPIPodStatus of v1.32
 * decides them: one table for the container state and its reason (ContainerCreating, PodInitializing,
 * Completed, Error, OOMKilled, CrashLoopBackOff, a container that vanished), one for the terminal phase
 * kept across the cached, the API and the computed status.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerStatus, PodPhase, PodStatus, RestartPolicy } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import type { ContainerStatusRT, PodStatusRT } from '../container/runtime.ts';
import { ReasonCache } from '../reason-cache.ts';
import { containerStatusRT } from '../testing/sim-kubelet.ts';
import { convertToAPIContainerStatuses } from './container-statuses.ts';
import { generateAPIPodStatus } from './generate.ts';

function pod(policy: RestartPolicy, init = false, deleted = false): AdmittedPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      uid: 'u',
      ...(deleted ? { deletionTimestamp: rfc3339(5_000), deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: {
      restartPolicy: policy,
      containers: [{ name: 'app', image: 'busybox' }],
      ...(init ? { initContainers: [{ name: 'init', image: 'busybox' }] } : {}),
    },
  };
}

function runtime(containers: ContainerStatusRT[]): PodStatusRT {
  return {
    id: 'u',
    name: 'p',
    namespace: 'default',
    ips: [],
    containerStatuses: containers,
    sandboxStatuses: [],
    timestamp: 0,
  };
}

const app = (id: string, state: ContainerStatusRT['state'], more: Partial<ContainerStatusRT> = {}) =>
  containerStatusRT({ id, name: 'app', state, createdAt: 1, startedAt: 1_000, ...more });
const exited = (id: string, exitCode: number, reason: string, createdAt = 1) =>
  app(id, 'exited', { exitCode, reason, createdAt, finishedAt: 2_000 });

const previousRunning: ContainerStatus = {
  name: 'app',
  state: { running: { startedAt: rfc3339(1_000) } },
  lastState: {},
  ready: true,
  restartCount: 2,
  image: 'busybox',
  imageID: '',
  containerID: 'c0',
};

interface Row {
  name: string;
  pod: AdmittedPod;
  containers: ContainerStatusRT[];
  previous?: ContainerStatus[];
  /** the reason cache's entry for `app`: [err, message] */
  failure?: [string, string];
  want: Pick<ContainerStatus, 'state' | 'lastState'> & { restartCount?: number };
}

const terminated = (exitCode: number, reason: string, containerID: string) => ({
  terminated: {
    exitCode,
    reason,
    message: '',
    startedAt: rfc3339(1_000),
    finishedAt: rfc3339(2_000),
    containerID,
  },
});

describe('container state and reason', () => {
  const rows: Row[] = [
    {
      name: 'not created yet: Waiting, ContainerCreating',
      pod: pod('Always'),
      containers: [],
      want: { state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} },
    },
    {
      name: 'not created yet in a pod with init containers: Waiting, PodInitializing',
      pod: pod('Always', true),
      containers: [],
      want: { state: { waiting: { reason: 'PodInitializing' } }, lastState: {} },
    },
    {
      name: 'created, not started: Waiting with no reason',
      pod: pod('Always'),
      containers: [app('c1', 'created', { startedAt: 0 })],
      want: { state: { waiting: {} }, lastState: {} },
    },
    {
      name: 'running: Running since it started',
      pod: pod('Always'),
      containers: [app('c1', 'running')],
      want: { state: { running: { startedAt: rfc3339(1_000) } }, lastState: {} },
    },
    {
      name: 'exited 0 and not restarted (OnFailure): Terminated, Completed',
      pod: pod('OnFailure'),
      containers: [exited('c1', 0, 'Completed')],
      want: { state: terminated(0, 'Completed', 'c1'), lastState: {} },
    },
    {
      name: 'exited 1 under Never: Terminated, Error',
      pod: pod('Never'),
      containers: [exited('c1', 1, 'Error')],
      failure: ['CrashLoopBackOff', 'never used: the container is not restarted'],
      want: { state: terminated(1, 'Error', 'c1'), lastState: {} },
    },
    {
      name: 'killed for memory under Never: Terminated, OOMKilled, 137',
      pod: pod('Never'),
      containers: [exited('c1', 137, 'OOMKilled')],
      want: { state: terminated(137, 'OOMKilled', 'c1'), lastState: {} },
    },
    {
      name: 'exited 1 and backing off: Waiting, CrashLoopBackOff, the exit as last state',
      pod: pod('Always'),
      containers: [exited('c1', 1, 'Error')],
      failure: ['CrashLoopBackOff', 'back-off 10s restarting failed container=app pod=p_default(u)'],
      want: {
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: 'back-off 10s restarting failed container=app pod=p_default(u)',
          },
        },
        lastState: terminated(1, 'Error', 'c1'),
      },
    },
    {
      name: 'restarted: the newest instance is the state, the one before the last state',
      pod: pod('Always'),
      containers: [app('c2', 'running', { createdAt: 3 }), exited('c1', 137, 'OOMKilled', 1)],
      want: {
        state: { running: { startedAt: rfc3339(1_000) } },
        lastState: terminated(137, 'OOMKilled', 'c1'),
      },
    },
    {
      name: 'the image cannot be pulled: Waiting, ErrImagePull',
      pod: pod('Always'),
      containers: [],
      failure: ['ErrImagePull', 'pull access denied'],
      want: { state: { waiting: { reason: 'ErrImagePull', message: 'pull access denied' } }, lastState: {} },
    },
    {
      name: 'was running and vanished: last state ContainerStatusUnknown, one more restart',
      pod: pod('Always'),
      containers: [],
      previous: [previousRunning],
      want: {
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {
          terminated: {
            reason: 'ContainerStatusUnknown',
            message:
              'The container could not be located when the pod was deleted.  The container used to be Running',
            exitCode: 137,
          },
        },
        restartCount: 3,
      },
    },
    {
      name: 'was running and vanished from a deleted pod: no restart counted',
      pod: pod('Always', false, true),
      containers: [],
      previous: [previousRunning],
      want: {
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {
          terminated: {
            reason: 'ContainerStatusUnknown',
            message:
              'The container could not be located when the pod was deleted.  The container used to be Running',
            exitCode: 137,
          },
        },
        restartCount: 2,
      },
    },
  ];
  it.each(rows)('$name', ({ pod, containers, previous, failure, want }) => {
    const reasons = new ReasonCache();
    if (failure) reasons.add('u', 'app', failure[0], failure[1]);
    const hasInit = (pod.spec.initContainers ?? []).length > 0;
    const [got] = convertToAPIContainerStatuses(
      pod,
      runtime(containers),
      previous ?? [],
      pod.spec.containers,
      hasInit,
      false,
      reasons,
    );
    expect({ state: got?.state, lastState: got?.lastState }).toEqual({
      state: want.state,
      lastState: want.lastState,
    });
    if (want.restartCount !== undefined) expect(got?.restartCount).toBe(want.restartCount);
  });
});

describe('the phase generateAPIPodStatus keeps', () => {
  const rows: {
    name: string;
    cached?: PodStatus;
    api?: PodStatus;
    evict?: boolean;
    want: { phase: PodPhase; reason?: string };
  }[] = [
    { name: 'nothing terminal anywhere: the computed Running', want: { phase: 'Running' } },
    {
      name: 'the cached status Succeeded: Succeeded, not the computed Running',
      cached: { phase: 'Succeeded' },
      want: { phase: 'Succeeded' },
    },
    {
      name: 'the API status Failed: Failed, not the computed Running',
      api: { phase: 'Failed', reason: 'Evicted' },
      want: { phase: 'Failed', reason: 'Evicted' },
    },
    {
      name: 'an internal module evicts (active deadline): Failed with its reason',
      evict: true,
      want: { phase: 'Failed', reason: 'DeadlineExceeded' },
    },
    {
      name: 'the API Succeeded and a module evicts: Succeeded stays',
      api: { phase: 'Succeeded' },
      evict: true,
      want: { phase: 'Succeeded', reason: 'DeadlineExceeded' },
    },
    {
      name: 'the phase unchanged: its reason is kept',
      cached: { phase: 'Running', reason: 'SomeReason' },
      want: { phase: 'Running', reason: 'SomeReason' },
    },
  ];
  it.each(rows)('$name', ({ cached, api, evict, want }) => {
    const p = pod('Always');
    if (api) p.status = api;
    const s = generateAPIPodStatus(p, runtime([app('c1', 'running')]), false, {
      cachedStatus: cached,
      reasonCache: new ReasonCache(),
      podSyncHandlers: evict
        ? [{ shouldEvict: () => ({ evict: true, reason: 'DeadlineExceeded', message: 'too long' }) }]
        : [],
    });
    expect({ phase: s.phase, reason: s.reason }).toEqual({ phase: want.phase, reason: want.reason });
  });
});
