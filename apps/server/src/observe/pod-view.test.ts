import type { Pod, PodSpec } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import type { ContainerStatusRT, PodStatusRT } from '@syncscope/core/kubelet/container/runtime';
import { factValue, PodStateReducer, RULES } from '@syncscope/core/pod-state';
import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { type ObservedIdentity, observedPod } from './pod-view.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const who: ObservedIdentity = {
  uid: 'u1',
  name: 'sc-init',
  namespace: 'default',
  createdAt: T0,
  managed: false,
};

function container(
  c: Partial<ContainerStatusRT> & Pick<ContainerStatusRT, 'id' | 'name'>,
): ContainerStatusRT {
  return {
    state: 'running',
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    image: 'busybox',
    imageRef: 'sha256:b',
    hash: '1',
    restartCount: 0,
    reason: '',
    message: '',
    ...c,
  };
}

/** The runtime's view of a pod: containers newest first, one ready sandbox. */
function runtime(...containers: ContainerStatusRT[]): PodStatusRT {
  return {
    id: who.uid,
    name: who.name,
    namespace: who.namespace,
    ips: ['10.0.0.5'],
    containerStatuses: [...containers].sort((a, b) => b.createdAt - a.createdAt),
    sandboxStatuses: [
      { id: 's1', state: 'ready', attempt: 0, createdAt: T0, ip: '10.0.0.5', hostNetwork: false },
    ],
    timestamp: T0 + 10_000,
  };
}

/** An init container that ran for a second and exited 0, then the app container, started after it. */
const initThenApp = runtime(
  container({
    id: 'c-init',
    name: 'init',
    state: 'exited',
    createdAt: T0 + 100,
    startedAt: T0 + 200,
    finishedAt: T0 + 1_300,
    exitCode: 0,
  }),
  container({ id: 'c-app', name: 'app', createdAt: T0 + 2_400, startedAt: T0 + 2_500 }),
);
const spec = (app: Partial<PodSpec['containers'][number]> = {}): PodSpec => ({
  initContainers: [{ name: 'init', image: 'busybox' }],
  containers: [{ name: 'app', image: 'busybox', ...app }],
});

const view = (status: PodStatusRT, s?: PodSpec) =>
  observedPod(who, status, () => undefined, T0 + 10_000, s) as Pod;
const condition = (p: Pod, type: string) => p.status?.conditions?.find((c) => c.type === type);
const names = (xs: { name: string }[] | undefined) => (xs ?? []).map((c) => c.name);

/** kubectl's STATUS as core's pod-state reducer reads it off the observer's status.update. */
function reducerWord(p: Pod): string | undefined {
  const r = new PodStateReducer();
  const ev = {
    type: 'status.update',
    seq: 1,
    time: T0 + 10_000,
    podUID: who.uid,
    pod: 'default/sc-init',
    status: p.status,
  };
  r.add(ev as TraceEvent);
  const s = r.snapshot(who.uid);
  return s && factValue(s.statusWord);
}

describe('observedPod: init containers and readiness', () => {
  it('with the API spec: its init containers, and Ready from its probes', () => {
    const p = view(initThenApp, spec());
    expect(names(p.status?.initContainerStatuses)).toEqual(['init']);
    expect(names(p.status?.containerStatuses)).toEqual(['app']);
    expect(condition(p, 'Initialized')).toEqual({ type: 'Initialized', status: 'True' });
    expect(condition(p, 'Ready')).toEqual({ type: 'Ready', status: 'True' });
    expect(printPod(p, T0 + 10_000).status).toBe('Running');
    expect(printPod(p, T0 + 10_000).ready).toBe('1/1');
    expect(reducerWord(p)).toBe('Running');
  });

  it('with a readiness probe in the spec: not shown ready, and the Ready condition unknown', () => {
    const p = view(initThenApp, spec({ readinessProbe: { exec: { command: ['true'] } } }));
    expect(p.status?.containerStatuses?.[0]?.ready).toBe(false);
    expect(condition(p, 'Ready')?.status).toBe('Unknown');
    expect(condition(p, 'Ready')?.message).toMatch(/^unknown: .*probe/);
    expect(printPod(p, T0 + 10_000).status).toBe('Running');
  });

  it('from the runtime alone: the init container inferred from the order they ran in, marked so', () => {
    const p = view(initThenApp);
    expect(names(p.status?.initContainerStatuses)).toEqual(['init']);
    expect(names(p.status?.containerStatuses)).toEqual(['app']);
    expect(names(p.spec.initContainers)).toEqual(['init']);
    expect(condition(p, 'Initialized')).toMatchObject({
      status: 'True',
      message: `inferred: ${RULES.initOrder}`,
    });
    expect(condition(p, 'Ready')).toMatchObject({
      status: 'True',
      message: expect.stringMatching(/^inferred: .*readiness probe/),
    });
    expect(printPod(p, T0 + 10_000).status).toBe('Running');
    expect(reducerWord(p)).toBe('Running');
  });

  it('from the runtime alone: a container that completed while another ran is no init container', () => {
    const p = view(
      runtime(
        container({
          id: 'c-job',
          name: 'job',
          state: 'exited',
          createdAt: T0 + 100,
          startedAt: T0 + 200,
          finishedAt: T0 + 1_300,
        }),
        container({ id: 'c-app', name: 'app', createdAt: T0 + 150, startedAt: T0 + 250 }),
      ),
    );
    expect(p.status?.initContainerStatuses).toBeUndefined();
    expect(names(p.status?.containerStatuses).sort()).toEqual(['app', 'job']);
    expect(condition(p, 'Initialized')).toBeUndefined();
    expect(condition(p, 'Ready')).toMatchObject({ status: 'False', reason: 'ContainersNotReady' });
    expect(printPod(p, T0 + 10_000).status).toBe('NotReady');
  });

  it('from the runtime alone: an exit with a failure, or the last container, is never taken for an init container', () => {
    const failed = view(
      runtime(
        container({
          id: 'c-a',
          name: 'a',
          state: 'exited',
          createdAt: T0 + 100,
          finishedAt: T0 + 1_300,
          exitCode: 1,
        }),
        container({ id: 'c-b', name: 'b', createdAt: T0 + 2_400 }),
      ),
    );
    expect(failed.status?.initContainerStatuses).toBeUndefined();
    const alone = view(
      runtime(
        container({ id: 'c-a', name: 'a', state: 'exited', createdAt: T0 + 100, finishedAt: T0 + 1_300 }),
      ),
    );
    expect(alone.status?.initContainerStatuses).toBeUndefined();
    expect(names(alone.status?.containerStatuses)).toEqual(['a']);
  });
});
