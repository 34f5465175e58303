import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerStatus, Pod, RestartPolicy } from '../../api/v1.ts';
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

type Case = [string, Pod, ContainerStatus[], boolean, string];
const cases: Case[] = [
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

describe('getPhase', () => {
  for (const [name, p, statuses, terminal, want] of cases) {
    it(name, () => expect(getPhase(p, statuses, terminal)).toBe(want));
  }
});
