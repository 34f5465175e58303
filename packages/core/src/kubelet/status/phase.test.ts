import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerStatus, Pod, PodPhase, RestartPolicy } from '../../api/v1.ts';
import { getPhase } from './phase.ts';

const running: ContainerState = { running: {} };
const waiting: ContainerState = { waiting: { reason: 'ContainerCreating' } };
const exit0: ContainerState = { terminated: { exitCode: 0 } };
const exit1: ContainerState = { terminated: { exitCode: 1 } };

function st(
  name: string,
  state: ContainerState,
  lastState: ContainerState = {},
  started?: boolean,
): ContainerStatus {
  return {
    name,
    state,
    lastState,
    ready: false,
    restartCount: 0,
    image: '',
    imageID: '',
    ...(started !== undefined ? { started } : {}),
  };
}

function pod(
  policy: RestartPolicy,
  containers: string[],
  init: { name: string; sidecar?: boolean }[] = [],
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', uid: 'u' },
    spec: {
      restartPolicy: policy,
      containers: containers.map((name) => ({ name, image: 'i' })),
      initContainers: init.map((c) => ({
        name: c.name,
        image: 'i',
        ...(c.sidecar ? { restartPolicy: 'Always' as const } : {}),
      })),
    },
  };
}

interface Row {
  name: string;
  pod: Pod;
  statuses: ContainerStatus[];
  /** the pod worker decided the pod is done (SyncTerminatingPod's final status, SyncTerminatedPod) */
  terminal: boolean;
  want: PodPhase;
}
const tuples: [string, Pod, ContainerStatus[], boolean, PodPhase][] = [
  ['no statuses → Pending', pod('Always', ['a']), [], false, 'Pending'],
  [
    'all running → Running',
    pod('Always', ['a', 'b']),
    [st('a', running), st('b', running)],
    false,
    'Running',
  ],
  [
    'one waiting → Pending',
    pod('Always', ['a', 'b']),
    [st('a', running), st('b', waiting)],
    false,
    'Pending',
  ],
  ['running + unknown → Pending', pod('Always', ['a', 'b']), [st('a', running)], false, 'Pending'],
  [
    'restarting after crash (waiting with last termination) counts as stopped → Running under Always',
    pod('Always', ['a']),
    [st('a', { waiting: { reason: 'CrashLoopBackOff' } }, exit1)],
    false,
    'Running',
  ],
  ['all exited 0, Always → Running', pod('Always', ['a']), [st('a', exit0)], false, 'Running'],
  ['all exited 0, OnFailure → Succeeded', pod('OnFailure', ['a']), [st('a', exit0)], false, 'Succeeded'],
  ['exited 1, OnFailure → Running', pod('OnFailure', ['a']), [st('a', exit1)], false, 'Running'],
  ['exited 1, Never → Failed', pod('Never', ['a']), [st('a', exit1)], false, 'Failed'],
  [
    'exited 0 and 1, Never → Failed',
    pod('Never', ['a', 'b']),
    [st('a', exit0), st('b', exit1)],
    false,
    'Failed',
  ],
  [
    'terminal pod: exit 0 under Always → Succeeded',
    pod('Always', ['a']),
    [st('a', exit0)],
    true,
    'Succeeded',
  ],
  [
    'terminal pod: exit 137 under Always → Failed',
    pod('Always', ['a']),
    [st('a', { terminated: { exitCode: 137 } })],
    true,
    'Failed',
  ],
  [
    'init running → Pending',
    pod('Always', ['a'], [{ name: 'i' }]),
    [st('i', running), st('a', { waiting: { reason: 'PodInitializing' } })],
    false,
    'Pending',
  ],
  [
    'init failed, Never → Failed',
    pod('Never', ['a'], [{ name: 'i' }]),
    [st('i', exit1), st('a', waiting)],
    false,
    'Failed',
  ],
  [
    'init failed, Always → Pending (restarting)',
    pod('Always', ['a'], [{ name: 'i' }]),
    [st('i', exit1), st('a', waiting)],
    false,
    'Pending',
  ],
  [
    'init done, app running → Running',
    pod('Always', ['a'], [{ name: 'i' }]),
    [st('i', exit0), st('a', running)],
    false,
    'Running',
  ],
  [
    'sidecar running not started, no app started → Pending',
    pod('Always', ['a'], [{ name: 's', sidecar: true }]),
    [st('s', running, {}, false), st('a', { waiting: { reason: 'PodInitializing' } })],
    false,
    'Pending',
  ],
  [
    'sidecar and app running → Running',
    pod('Always', ['a'], [{ name: 's', sidecar: true }]),
    [st('s', running, {}, true), st('a', running)],
    false,
    'Running',
  ],
  [
    'sidecar exited, app exited 0, Never → Succeeded',
    pod('Never', ['a'], [{ name: 's', sidecar: true }]),
    [st('s', exit1), st('a', exit0)],
    false,
    'Succeeded',
  ],
];

const staticPod = (p: Pod): Pod => ({
  ...p,
  metadata: { ...p.metadata, annotations: { 'kubernetes.io/config.source': 'file' } },
});

const rows: Row[] = [
  ...tuples.map(([name, pod, statuses, terminal, want]) => ({ name, pod, statuses, terminal, want })),
  {
    name: 'a container with no state at all counts as unknown → Pending',
    pod: pod('Always', ['a', 'b']),
    statuses: [st('a', running), st('b', {})],
    terminal: false,
    want: 'Pending',
  },
  {
    name: 'terminal static pod: stopped containers follow the restart policy (Always → Running)',
    pod: staticPod(pod('Always', ['a'])),
    statuses: [st('a', exit1)],
    terminal: true,
    want: 'Running',
  },
  {
    name: 'init failed, OnFailure → Pending (restarting)',
    pod: pod('OnFailure', ['a'], [{ name: 'i' }]),
    statuses: [st('i', { waiting: { reason: 'CrashLoopBackOff' } }, exit1), st('a', waiting)],
    terminal: false,
    want: 'Pending',
  },
  {
    name: 'init waiting after an earlier exit 1, Never → Failed',
    pod: pod('Never', ['a'], [{ name: 'i' }]),
    statuses: [st('i', { waiting: {} }, exit1), st('a', waiting)],
    terminal: false,
    want: 'Failed',
  },
  {
    name: 'init waiting after an earlier exit 0, app running → Running',
    pod: pod('Always', ['a'], [{ name: 'i' }]),
    statuses: [st('i', { waiting: {} }, exit0), st('a', running)],
    terminal: false,
    want: 'Running',
  },
  {
    name: 'sidecar restarting after an exit, app running → Running',
    pod: pod('Always', ['a'], [{ name: 's', sidecar: true }]),
    statuses: [st('s', { waiting: { reason: 'CrashLoopBackOff' } }, exit1), st('a', running)],
    terminal: false,
    want: 'Running',
  },
  {
    name: 'sidecar not started but an app container already ran (after a node reboot) → not Pending',
    pod: pod('Always', ['a'], [{ name: 's', sidecar: true }]),
    statuses: [st('s', running, {}, false), st('a', exit0)],
    terminal: false,
    want: 'Running',
  },
  {
    name: 'sidecar still running, app exited 0, OnFailure → Running (the sidecar runs)',
    pod: pod('OnFailure', ['a'], [{ name: 's', sidecar: true }]),
    statuses: [st('s', running, {}, true), st('a', exit0)],
    terminal: false,
    want: 'Running',
  },
];

describe('getPhase', () => {
  it.each(rows)('$name', ({ pod, statuses, terminal, want }) => {
    expect(getPhase(pod, statuses, terminal)).toBe(want);
  });
});
