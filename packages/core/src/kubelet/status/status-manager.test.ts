/**
 * The status manager's decisions (status_manager.go of v1.32), through its constructor and public calls
 * only: which updates it records and which it skips as unchanged or illegal, that a terminal phase stays,
 * what TerminatePod reports for containers it never saw end, and the times it keeps.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerStatus, Pod, PodStatus, RestartPolicy } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { checkContainerStateTransition, StatusManager } from './status-manager.ts';

const running: ContainerState = { running: {} };
const exit0: ContainerState = { terminated: { exitCode: 0, reason: 'Completed' } };
const exit1: ContainerState = { terminated: { exitCode: 1, reason: 'Error' } };
const creating: ContainerState = { waiting: { reason: 'ContainerCreating' } };
const initializing: ContainerState = { waiting: { reason: 'PodInitializing' } };
const unknown137: ContainerState = {
  terminated: {
    reason: 'ContainerStatusUnknown',
    message: 'The container could not be located when the pod was terminated',
    exitCode: 137,
  },
};

function cs(name: string, state: ContainerState, lastState: ContainerState = {}): ContainerStatus {
  return { name, state, lastState, ready: false, restartCount: 0, image: 'busybox', imageID: '' };
}

function pod(policy: RestartPolicy = 'Always', inits: string[] = []): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u' },
    spec: {
      restartPolicy: policy,
      containers: [{ name: 'app', image: 'busybox' }],
      initContainers: inits.map((name) => ({ name, image: 'busybox' })),
    },
  };
}

function status(phase: PodStatus['phase'], app: ContainerState, extra: Partial<PodStatus> = {}): PodStatus {
  return { phase, containerStatuses: [cs('app', app)], ...extra };
}

function manager() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const sm = new StatusManager(clock, trace);
  const updates = () => trace.since(0, (e) => e.type === 'status.update').length;
  return { clock, sm, updates };
}

describe('an update recorded or skipped', () => {
  const rows: {
    name: string;
    policy?: RestartPolicy;
    steps: PodStatus[];
    recorded: number;
    phase: string;
  }[] = [
    {
      name: 'the first status is recorded',
      steps: [status('Pending', creating)],
      recorded: 1,
      phase: 'Pending',
    },
    {
      name: 'the same status again (a resync) is skipped',
      steps: [status('Running', running), status('Running', running)],
      recorded: 1,
      phase: 'Running',
    },
    {
      name: 'a container state change is recorded',
      steps: [status('Pending', creating), status('Running', running)],
      recorded: 2,
      phase: 'Running',
    },
    {
      name: 'a condition status change is recorded',
      steps: [
        status('Running', running, { conditions: [{ type: 'Ready', status: 'False' }] }),
        status('Running', running, { conditions: [{ type: 'Ready', status: 'True' }] }),
      ],
      recorded: 2,
      phase: 'Running',
    },
    {
      name: 'Succeeded never goes back to Running',
      policy: 'OnFailure',
      steps: [status('Succeeded', exit0), status('Running', exit0)],
      recorded: 1,
      phase: 'Succeeded',
    },
    {
      name: 'Failed never goes back to Pending',
      policy: 'Always',
      steps: [status('Failed', exit1), status('Pending', creating)],
      recorded: 1,
      phase: 'Failed',
    },
    {
      name: 'Never: a terminated container going back to running is refused',
      policy: 'Never',
      steps: [status('Running', exit1), status('Running', running)],
      recorded: 1,
      phase: 'Running',
    },
    {
      name: 'OnFailure: a container that exited 1 may run again',
      policy: 'OnFailure',
      steps: [status('Running', exit1), status('Running', running)],
      recorded: 2,
      phase: 'Running',
    },
    {
      name: 'OnFailure: a container that exited 0 may not run again',
      policy: 'OnFailure',
      steps: [status('Running', exit0), status('Running', running)],
      recorded: 1,
      phase: 'Running',
    },
    {
      name: 'Always: a terminated container may run again',
      policy: 'Always',
      steps: [status('Running', exit0), status('Running', running)],
      recorded: 2,
      phase: 'Running',
    },
  ];
  it.each(rows)('$name', ({ policy, steps, recorded, phase }) => {
    const { sm, updates } = manager();
    const p = pod(policy);
    for (const s of steps) sm.setPodStatus(p, s);
    expect(updates()).toBe(recorded);
    expect(sm.getPodStatus('u')?.phase).toBe(phase);
  });
});

describe('illegal container transitions', () => {
  const rows: {
    name: string;
    policy: RestartPolicy;
    sidecar?: boolean;
    init?: [ContainerState, ContainerState];
    app: [ContainerState, ContainerState];
    want: string | undefined;
  }[] = [
    { name: 'Always allows anything', policy: 'Always', app: [exit0, running], want: undefined },
    {
      name: 'Never refuses terminated → running',
      policy: 'Never',
      app: [exit1, running],
      want: 'terminated container app attempted illegal transition to non-terminated state',
    },
    {
      name: 'Never refuses terminated → waiting',
      policy: 'Never',
      app: [exit0, creating],
      want: 'terminated container app attempted illegal transition to non-terminated state',
    },
    { name: 'Never allows running → terminated', policy: 'Never', app: [running, exit1], want: undefined },
    {
      name: 'OnFailure allows exit 1 → running',
      policy: 'OnFailure',
      app: [exit1, running],
      want: undefined,
    },
    {
      name: 'OnFailure refuses exit 0 → running',
      policy: 'OnFailure',
      app: [exit0, running],
      want: 'terminated container app attempted illegal transition to non-terminated state',
    },
    {
      name: 'Never refuses an init container exit 0 → running',
      policy: 'Never',
      init: [exit0, running],
      app: [initializing, initializing],
      want: 'terminated init container init attempted illegal transition to non-terminated state',
    },
    {
      name: 'Never lets a sidecar restart',
      policy: 'Never',
      sidecar: true,
      init: [exit1, running],
      app: [running, running],
      want: undefined,
    },
  ];
  it.each(rows)('$name', ({ policy, sidecar, init, app, want }) => {
    const p = pod(policy, init ? ['init'] : []);
    const first = p.spec.initContainers?.[0];
    if (sidecar && first) first.restartPolicy = 'Always';
    const at = (i: 0 | 1): PodStatus => ({
      phase: 'Running',
      containerStatuses: [cs('app', app[i])],
      ...(init ? { initContainerStatuses: [cs('init', init[i])] } : {}),
    });
    expect(checkContainerStateTransition(at(0), at(1), p.spec)).toBe(want);
  });
});

describe('TerminatePod', () => {
  const rows: {
    name: string;
    inits: string[];
    /** the last init container is a sidecar (restartPolicy Always) */
    sidecarLast?: boolean;
    before: PodStatus;
    phase: string;
    app: ContainerState;
    initStates?: ContainerState[];
  }[] = [
    {
      name: 'a running container is reported as ContainerStatusUnknown, 137, and the pod Failed',
      inits: [],
      before: status('Running', running),
      phase: 'Failed',
      app: unknown137,
    },
    {
      name: 'a container that exited keeps its own termination',
      inits: [],
      before: status('Running', exit0),
      phase: 'Failed',
      app: exit0,
    },
    {
      name: 'a pod already Succeeded stays Succeeded',
      inits: [],
      before: status('Succeeded', exit0),
      phase: 'Succeeded',
      app: exit0,
    },
    {
      name: 'init not finished: the app that never started stays waiting; the running init is unknown',
      inits: ['a', 'b'],
      before: status('Pending', initializing, {
        initContainerStatuses: [cs('a', running), cs('b', initializing)],
      }),
      phase: 'Failed',
      app: initializing,
      initStates: [unknown137, initializing],
    },
    {
      name: 'no init container ever started: the first is still reported as failed',
      inits: ['a', 'b'],
      before: status('Pending', initializing, {
        initContainerStatuses: [cs('a', initializing), cs('b', initializing)],
      }),
      phase: 'Failed',
      app: initializing,
      initStates: [unknown137, initializing],
    },
    {
      name: 'the last init exited 0 before (last state): the pod initialized, its waiting app is unknown',
      inits: ['a'],
      before: status('Pending', initializing, {
        initContainerStatuses: [cs('a', { waiting: { reason: 'PodInitializing' } }, exit0)],
      }),
      phase: 'Failed',
      app: unknown137,
      initStates: [unknown137],
    },
    {
      name: 'the last init is a started sidecar: the pod initialized, its waiting app is unknown',
      inits: ['side'],
      sidecarLast: true,
      before: status('Pending', initializing, {
        initContainerStatuses: [{ ...cs('side', running), started: true }],
      }),
      phase: 'Failed',
      app: unknown137,
      initStates: [unknown137],
    },
    {
      name: 'the last init is a sidecar not started yet: the waiting app stays waiting',
      inits: ['side'],
      sidecarLast: true,
      before: status('Pending', initializing, {
        initContainerStatuses: [{ ...cs('side', running), started: false }],
      }),
      phase: 'Failed',
      app: initializing,
      initStates: [unknown137],
    },
  ];
  it.each(rows)('$name', ({ inits, sidecarLast, before, phase, app, initStates }) => {
    const { sm } = manager();
    const p = pod('Always', inits);
    const last = p.spec.initContainers?.[inits.length - 1];
    if (sidecarLast && last) last.restartPolicy = 'Always';
    sm.setPodStatus(p, before);
    sm.terminatePod(p);
    const after = sm.getPodStatus('u');
    expect(after?.phase).toBe(phase);
    expect(after?.containerStatuses?.[0]?.state).toEqual(app);
    if (initStates) expect(after?.initContainerStatuses?.map((c) => c.state)).toEqual(initStates);
  });
});

describe('times the status keeps', () => {
  it.each([
    { name: 'an unchanged condition keeps its transition time', second: 'True', moves: false },
    { name: 'a condition that flips gets a new transition time', second: 'False', moves: true },
  ] as const)('$name', async ({ second, moves }) => {
    const { clock, sm } = manager();
    const p = pod();
    const t0 = rfc3339(clock.now());
    sm.setPodStatus(p, status('Running', running, { conditions: [{ type: 'Ready', status: 'True' }] }));
    await clock.step(5_000);
    sm.setPodStatus(
      p,
      status('Running', exit1, { conditions: [{ type: 'Ready', status: second as 'True' | 'False' }] }),
    );
    const got = sm.getPodStatus('u');
    expect(got?.conditions?.[0]?.lastTransitionTime).toBe(moves ? rfc3339(clock.now()) : t0);
    // startTime is set once and never changes
    expect(got?.startTime).toBe(t0);
  });
});
