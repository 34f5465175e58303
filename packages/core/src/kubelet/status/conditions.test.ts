/**
 * The kubelet-owned pod conditions as generate.go of v1.32 words them: one table per condition, each row a
 * pod's containers and phase in, the condition (status, reason, message) out.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerStatus, Pod, PodCondition, PodPhase, PodSpec } from '../../api/v1.ts';
import type { PodStatusRT, SandboxStatusRT } from '../container/runtime.ts';
import {
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  generatePodReadyToStartContainersCondition,
} from './conditions.ts';

const running: ContainerState = { running: {} };
const exit0: ContainerState = { terminated: { exitCode: 0, reason: 'Completed' } };
const waiting: ContainerState = { waiting: { reason: 'PodInitializing' } };

function cs(name: string, state: ContainerState, flags: { ready?: boolean; started?: boolean } = {}) {
  const s: ContainerStatus = {
    name,
    state,
    lastState: {},
    ready: flags.ready ?? false,
    restartCount: 0,
    image: 'busybox',
    imageID: '',
  };
  if (flags.started !== undefined) s.started = flags.started;
  return s;
}

/** A spec with regular containers `apps`, regular init containers `inits` and sidecars `sidecars`. */
function spec(apps: string[], inits: string[] = [], sidecars: string[] = [], gates: string[] = []): PodSpec {
  return {
    containers: apps.map((name) => ({ name, image: 'busybox' })),
    initContainers: [
      ...inits.map((name) => ({ name, image: 'busybox' })),
      ...sidecars.map((name) => ({ name, image: 'busybox', restartPolicy: 'Always' as const })),
    ],
    readinessGates: gates.map((conditionType) => ({ conditionType })),
  };
}

interface Row {
  name: string;
  spec: PodSpec;
  statuses: ContainerStatus[] | undefined;
  phase: PodPhase;
  want: PodCondition;
}

describe('Initialized', () => {
  const rows: Row[] = [
    {
      name: 'no init containers: True',
      spec: spec(['app']),
      statuses: [],
      phase: 'Pending',
      want: { type: 'Initialized', status: 'True' },
    },
    {
      name: 'init containers and no statuses at all: UnknownContainerStatuses',
      spec: spec(['app'], ['init']),
      statuses: undefined,
      phase: 'Pending',
      want: { type: 'Initialized', status: 'False', reason: 'UnknownContainerStatuses' },
    },
    {
      name: 'an init container with no status: ContainersNotInitialized, unknown',
      spec: spec(['app'], ['a', 'b']),
      statuses: [cs('a', exit0, { ready: true })],
      phase: 'Pending',
      want: {
        type: 'Initialized',
        status: 'False',
        reason: 'ContainersNotInitialized',
        message: 'containers with unknown status: [b]',
      },
    },
    {
      name: 'init containers running and waiting: incomplete, in spec order',
      spec: spec(['app'], ['a', 'b']),
      statuses: [cs('a', running), cs('b', waiting)],
      phase: 'Pending',
      want: {
        type: 'Initialized',
        status: 'False',
        reason: 'ContainersNotInitialized',
        message: 'containers with incomplete status: [a b]',
      },
    },
    {
      name: 'unknown and incomplete together: both messages joined',
      spec: spec(['app'], ['a', 'b']),
      statuses: [cs('a', running)],
      phase: 'Pending',
      want: {
        type: 'Initialized',
        status: 'False',
        reason: 'ContainersNotInitialized',
        message: 'containers with unknown status: [b], containers with incomplete status: [a]',
      },
    },
    {
      name: 'a sidecar running but not started: incomplete',
      spec: spec(['app'], [], ['side']),
      statuses: [cs('side', running, { started: false }), cs('app', waiting)],
      phase: 'Pending',
      want: {
        type: 'Initialized',
        status: 'False',
        reason: 'ContainersNotInitialized',
        message: 'containers with incomplete status: [side]',
      },
    },
    {
      name: 'a sidecar started (not ready): initialized',
      spec: spec(['app'], [], ['side']),
      statuses: [cs('side', running, { started: true }), cs('app', waiting)],
      phase: 'Pending',
      want: { type: 'Initialized', status: 'True' },
    },
    {
      name: 'every init container exited 0 (ready): True',
      spec: spec(['app'], ['a']),
      statuses: [cs('a', exit0, { ready: true }), cs('app', waiting)],
      phase: 'Pending',
      want: { type: 'Initialized', status: 'True' },
    },
    {
      name: 'a regular container started once: True whatever the init containers show',
      spec: spec(['app'], ['a']),
      statuses: [cs('a', waiting), cs('app', running)],
      phase: 'Running',
      want: { type: 'Initialized', status: 'True' },
    },
    {
      name: 'Succeeded with every init status known: True, PodCompleted',
      spec: spec(['app'], ['a']),
      statuses: [cs('a', exit0), cs('app', exit0)],
      phase: 'Succeeded',
      want: { type: 'Initialized', status: 'True', reason: 'PodCompleted' },
    },
  ];
  it.each(rows)('$name', ({ spec, statuses, phase, want }) => {
    expect(generatePodInitializedCondition(spec, statuses, phase)).toEqual(want);
  });
});

describe('ContainersReady and Ready', () => {
  const rows: (Row & { ready?: PodCondition })[] = [
    {
      name: 'no statuses at all: UnknownContainerStatuses',
      spec: spec(['app']),
      statuses: undefined,
      phase: 'Pending',
      want: { type: 'ContainersReady', status: 'False', reason: 'UnknownContainerStatuses' },
    },
    {
      name: 'every container ready: True',
      spec: spec(['a', 'b']),
      statuses: [cs('a', running, { ready: true }), cs('b', running, { ready: true })],
      phase: 'Running',
      want: { type: 'ContainersReady', status: 'True' },
    },
    {
      name: 'unknown and unready: ContainersNotReady with both lists',
      spec: spec(['a', 'b', 'c']),
      statuses: [cs('a', running, { ready: true }), cs('b', running)],
      phase: 'Running',
      want: {
        type: 'ContainersReady',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unknown status: [c], containers with unready status: [b]',
      },
    },
    {
      name: 'an unready sidecar counts; a regular init container does not',
      spec: spec(['app'], ['init'], ['side']),
      statuses: [cs('init', exit0), cs('side', running), cs('app', running, { ready: true })],
      phase: 'Running',
      want: {
        type: 'ContainersReady',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [side]',
      },
    },
    {
      name: 'Succeeded with every status known: PodCompleted',
      spec: spec(['app']),
      statuses: [cs('app', exit0)],
      phase: 'Succeeded',
      want: { type: 'ContainersReady', status: 'False', reason: 'PodCompleted' },
    },
    {
      name: 'Failed, even with a container still marked ready: PodFailed',
      spec: spec(['app']),
      statuses: [cs('app', running, { ready: true })],
      phase: 'Failed',
      want: { type: 'ContainersReady', status: 'False', reason: 'PodFailed' },
    },
  ];
  it.each(rows)('$name', ({ spec, statuses, phase, want }) => {
    expect(generateContainersReadyCondition(spec, statuses, phase)).toEqual(want);
    // Ready mirrors ContainersReady while that is not True (no readiness gates here)
    expect(generatePodReadyCondition(spec, [], statuses, phase)).toEqual({ ...want, type: 'Ready' });
  });
});

describe('Ready with readiness gates', () => {
  const ready = [cs('app', running, { ready: true })];
  const rows: { name: string; conditions: PodCondition[]; want: PodCondition }[] = [
    {
      name: 'the gate condition missing: ReadinessGatesNotReady, does not exist',
      conditions: [],
      want: {
        type: 'Ready',
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: 'corresponding condition of pod readiness gate "example.com/lb" does not exist.',
      },
    },
    {
      name: 'the gate condition False: ReadinessGatesNotReady, not "True"',
      conditions: [{ type: 'example.com/lb', status: 'False' }],
      want: {
        type: 'Ready',
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: 'the status of pod readiness gate "example.com/lb" is not "True", but False',
      },
    },
    {
      name: 'the gate condition True: Ready',
      conditions: [{ type: 'example.com/lb', status: 'True' }],
      want: { type: 'Ready', status: 'True' },
    },
  ];
  it.each(rows)('$name', ({ conditions, want }) => {
    const s = spec(['app'], [], [], ['example.com/lb']);
    expect(generatePodReadyCondition(s, conditions, ready, 'Running')).toEqual(want);
  });
});

describe('PodReadyToStartContainers', () => {
  const sandbox = (state: SandboxStatusRT['state'], ip = '10.88.0.2'): SandboxStatusRT => ({
    id: `sb-${state}-${ip}`,
    state,
    attempt: 0,
    createdAt: 1,
    ip,
    hostNetwork: false,
  });
  const rows: { name: string; sandboxes: SandboxStatusRT[]; want: 'True' | 'False' }[] = [
    { name: 'no sandbox yet: False', sandboxes: [], want: 'False' },
    { name: 'the newest sandbox ready with an IP: True', sandboxes: [sandbox('ready')], want: 'True' },
    { name: 'the newest sandbox not ready: False', sandboxes: [sandbox('notready')], want: 'False' },
    { name: 'a ready sandbox with no IP: False', sandboxes: [sandbox('ready', '')], want: 'False' },
    {
      name: 'two ready sandboxes: False (the next sync makes a new one)',
      sandboxes: [sandbox('ready'), sandbox('ready', '10.88.0.3')],
      want: 'False',
    },
  ];
  it.each(rows)('$name', ({ sandboxes, want }) => {
    const status: PodStatusRT = {
      id: 'u',
      name: 'p',
      namespace: 'default',
      ips: [],
      containerStatuses: [],
      sandboxStatuses: sandboxes,
      timestamp: 0,
    };
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', uid: 'u' },
      spec: spec(['app']),
    };
    expect(generatePodReadyToStartContainersCondition(pod, status)).toEqual({
      type: 'PodReadyToStartContainers',
      status: want,
    });
  });
});
