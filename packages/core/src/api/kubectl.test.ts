import { describe, expect, it } from 'vitest';
import { humanDuration, printPod, shortHumanDuration, translateTimestampSince } from './kubectl.ts';
import type { ContainerState, ContainerStatus, Pod, PodStatus } from './v1.ts';

const NOW = Date.parse('2025-01-10T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('humanDuration', () => {
  it.each([
    [-5 * S, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [5 * S, '5s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [3 * M + 10 * S, '3m10s'],
    [10 * M + 59 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [5 * H + 3 * M, '5h3m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D + 4 * H, '2d4h'],
    [3 * D, '3d'],
    [8 * D + 5 * H, '8d'],
    [400 * D, '400d'],
    [730 * D, '2y'],
    [830 * D, '2y100d'],
    [9 * 365 * D, '9y'],
  ])('%d ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('shortHumanDuration', () => {
  it.each([
    [-5 * S, '<invalid>'],
    [59 * S, '59s'],
    [3 * M + 10 * S, '3m'],
    [5 * H + 3 * M, '5h'],
    [2 * D + 4 * H, '2d'],
    [800 * D, '2y'],
  ])('%d ms → %s', (ms, want) => {
    expect(shortHumanDuration(ms)).toBe(want);
  });
});

describe('translateTimestampSince', () => {
  it('reads RFC 3339 and reports missing times as <unknown>', () => {
    expect(translateTimestampSince(ago(190 * S), NOW)).toBe('3m10s');
    expect(translateTimestampSince(undefined, NOW)).toBe('<unknown>');
    expect(translateTimestampSince('not a time', NOW)).toBe('<unknown>');
  });
});

// ---- printPod ----

const running = (): ContainerState => ({ running: { startedAt: ago(60 * S) } });
const waiting = (reason: string): ContainerState => ({ waiting: { reason } });
const terminated = (exitCode: number, reason?: string, finishedAgo = 10 * S): ContainerState => ({
  terminated: { exitCode, ...(reason ? { reason } : {}), finishedAt: ago(finishedAgo) },
});

function cs(name: string, state: ContainerState, extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return {
    name,
    state,
    lastState: {},
    ready: Boolean(state.running),
    restartCount: 0,
    image: 'busybox',
    imageID: '',
    started: Boolean(state.running),
    ...extra,
  };
}

interface PodOpts {
  containers?: string[];
  init?: string[];
  sidecars?: string[];
  status: Partial<PodStatus>;
  deleting?: boolean;
}

function pod(o: PodOpts): Pod {
  const init = [
    ...(o.sidecars ?? []).map((name) => ({ name, image: 'busybox', restartPolicy: 'Always' as const })),
    ...(o.init ?? []).map((name) => ({ name, image: 'busybox' })),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      namespace: 'default',
      creationTimestamp: ago(5 * M),
      ...(o.deleting ? { deletionTimestamp: ago(1 * S) } : {}),
    },
    spec: {
      containers: (o.containers ?? ['app']).map((name) => ({ name, image: 'busybox' })),
      ...(init.length ? { initContainers: init } : {}),
    },
    status: { phase: 'Running', ...o.status },
  };
}

const readyCond = (s: 'True' | 'False') => [
  { type: 'Initialized', status: 'True' as const },
  { type: 'Ready', status: s },
];

describe('printPod STATUS and READY', () => {
  it.each<[string, PodOpts, string, string]>([
    ['running and ready', { status: { containerStatuses: [cs('app', running())] } }, 'Running', '1/1'],
    [
      'creating',
      { status: { phase: 'Pending', containerStatuses: [cs('app', waiting('ContainerCreating'))] } },
      'ContainerCreating',
      '0/1',
    ],
    [
      'init containers not started yet',
      {
        init: ['a', 'b'],
        status: {
          phase: 'Pending',
          initContainerStatuses: [cs('a', waiting('PodInitializing')), cs('b', waiting('PodInitializing'))],
          containerStatuses: [cs('app', waiting('PodInitializing'))],
        },
      },
      'Init:0/2',
      '0/1',
    ],
    [
      'second init container running',
      {
        init: ['a', 'b'],
        status: {
          phase: 'Pending',
          initContainerStatuses: [cs('a', terminated(0, 'Completed')), cs('b', running())],
          containerStatuses: [cs('app', waiting('PodInitializing'))],
        },
      },
      'Init:1/2',
      '0/1',
    ],
    [
      'init containers done, app starting',
      {
        init: ['a'],
        status: {
          phase: 'Pending',
          initContainerStatuses: [cs('a', terminated(0, 'Completed'))],
          containerStatuses: [cs('app', waiting('PodInitializing'))],
        },
      },
      'PodInitializing',
      '0/1',
    ],
    [
      'init container crash-looping',
      {
        init: ['a'],
        status: {
          phase: 'Pending',
          initContainerStatuses: [cs('a', waiting('CrashLoopBackOff'), { restartCount: 2 })],
        },
      },
      'Init:CrashLoopBackOff',
      '0/1',
    ],
    [
      'init container failed',
      { init: ['a'], status: { phase: 'Failed', initContainerStatuses: [cs('a', terminated(1, 'Error'))] } },
      'Init:Error',
      '0/1',
    ],
    [
      'init container failed without reason',
      { init: ['a'], status: { phase: 'Pending', initContainerStatuses: [cs('a', terminated(3))] } },
      'Init:ExitCode:3',
      '0/1',
    ],
    [
      'crash loop',
      { status: { containerStatuses: [cs('app', waiting('CrashLoopBackOff'), { restartCount: 3 })] } },
      'CrashLoopBackOff',
      '0/1',
    ],
    [
      'image pull back-off',
      { status: { phase: 'Pending', containerStatuses: [cs('app', waiting('ImagePullBackOff'))] } },
      'ImagePullBackOff',
      '0/1',
    ],
    [
      'image pull error',
      { status: { phase: 'Pending', containerStatuses: [cs('app', waiting('ErrImagePull'))] } },
      'ErrImagePull',
      '0/1',
    ],
    [
      'completed',
      { status: { phase: 'Succeeded', containerStatuses: [cs('app', terminated(0, 'Completed'))] } },
      'Completed',
      '0/1',
    ],
    [
      'failed with Error',
      { status: { phase: 'Failed', containerStatuses: [cs('app', terminated(1, 'Error'))] } },
      'Error',
      '0/1',
    ],
    [
      'OOM killed',
      { status: { phase: 'Failed', containerStatuses: [cs('app', terminated(137, 'OOMKilled'))] } },
      'OOMKilled',
      '0/1',
    ],
    [
      'terminated by a signal without reason',
      {
        status: {
          phase: 'Failed',
          containerStatuses: [cs('app', { terminated: { exitCode: 137, signal: 9 } })],
        },
      },
      'Signal:9',
      '0/1',
    ],
    [
      'first container wins: waiting app before a running one',
      {
        containers: ['a', 'b'],
        status: { containerStatuses: [cs('a', waiting('CrashLoopBackOff')), cs('b', running())] },
      },
      'CrashLoopBackOff',
      '1/2',
    ],
    [
      'one completed, one running, pod ready',
      {
        containers: ['a', 'b'],
        status: {
          conditions: readyCond('True'),
          containerStatuses: [cs('a', terminated(0, 'Completed')), cs('b', running())],
        },
      },
      'Running',
      '1/2',
    ],
    [
      'one completed, one running, pod not ready',
      {
        containers: ['a', 'b'],
        status: {
          conditions: readyCond('False'),
          containerStatuses: [cs('a', terminated(0, 'Completed')), cs('b', running())],
        },
      },
      'NotReady',
      '1/2',
    ],
    [
      'running but not ready',
      { status: { containerStatuses: [cs('app', running(), { ready: false })] } },
      'Running',
      '0/1',
    ],
    [
      'sidecar started and ready counts in READY',
      {
        sidecars: ['proxy'],
        status: {
          conditions: readyCond('True'),
          initContainerStatuses: [cs('proxy', running())],
          containerStatuses: [cs('app', running())],
        },
      },
      'Running',
      '2/2',
    ],
    [
      'deleting a running pod',
      { deleting: true, status: { containerStatuses: [cs('app', running())] } },
      'Terminating',
      '1/1',
    ],
    [
      'deleting a completed pod stays Completed',
      {
        deleting: true,
        status: { phase: 'Succeeded', containerStatuses: [cs('app', terminated(0, 'Completed'))] },
      },
      'Completed',
      '0/1',
    ],
    [
      'deleting a pod of an unreachable node',
      { deleting: true, status: { reason: 'NodeLost', containerStatuses: [cs('app', running())] } },
      'Unknown',
      '1/1',
    ],
    ['no container statuses yet: the phase', { status: { phase: 'Pending' } }, 'Pending', '0/1'],
    ['pod-level reason', { status: { phase: 'Failed', reason: 'Evicted' } }, 'Evicted', '0/1'],
  ])('%s', (_name, opts, status, ready) => {
    const row = printPod(pod(opts), NOW);
    expect(row.status).toBe(status);
    expect(row.ready).toBe(ready);
  });
});

describe('printPod RESTARTS and AGE', () => {
  it('prints the age from creationTimestamp', () => {
    const row = printPod(pod({ status: { containerStatuses: [cs('app', running())] } }), NOW);
    expect(row.age).toBe('5m');
    expect(row).toMatchObject({ name: 'web', namespace: 'default' });
  });

  it('prints a plain count without a known restart time', () => {
    const row = printPod(
      pod({ status: { containerStatuses: [cs('app', running(), { restartCount: 2 })] } }),
      NOW,
    );
    expect(row.restarts).toBe('2');
  });

  it('prints how long ago the latest restart finished', () => {
    const a = cs('a', waiting('CrashLoopBackOff'), {
      restartCount: 3,
      lastState: terminated(1, 'Error', 40 * S),
    });
    const b = cs('b', running(), { restartCount: 1, lastState: terminated(0, 'Completed', 5 * M) });
    const row = printPod(pod({ containers: ['a', 'b'], status: { containerStatuses: [a, b] } }), NOW);
    expect(row.restarts).toBe('4 (40s ago)');
    expect(row.restartCount).toBe(4);
    expect(row.lastRestartTime).toBe(NOW - 40 * S);
  });

  it('counts init container restarts while initialising, app restarts after', () => {
    const initRestarting = cs('a', waiting('CrashLoopBackOff'), {
      restartCount: 5,
      lastState: terminated(1, 'Error', 20 * S),
    });
    const initializing = pod({
      init: ['a'],
      status: {
        phase: 'Pending',
        initContainerStatuses: [initRestarting],
        containerStatuses: [cs('app', waiting('PodInitializing'))],
      },
    });
    expect(printPod(initializing, NOW).restarts).toBe('5 (20s ago)');

    const done = pod({
      init: ['a'],
      status: {
        conditions: readyCond('True'),
        initContainerStatuses: [cs('a', terminated(0, 'Completed'), { restartCount: 5 })],
        containerStatuses: [
          cs('app', running(), { restartCount: 1, lastState: terminated(2, 'Error', 3 * M) }),
        ],
      },
    });
    expect(printPod(done, NOW).restarts).toBe('1 (3m ago)');
  });
});
