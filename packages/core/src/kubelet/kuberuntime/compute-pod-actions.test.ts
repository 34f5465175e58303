import { describe, expect, it } from 'vitest';
import type { Container, Pod, RestartPolicy } from '../../api/v1.ts';
import type { ContainerStatusRT, PodStatusRT, SandboxStatusRT } from '../container/runtime.ts';
import { computePodActions, summarize } from './compute-pod-actions.ts';
import { hashContainerHex } from './hash.ts';

const T0 = Date.UTC(2026, 0, 1);

function mkPod(opts: {
  containers?: Container[];
  init?: Container[];
  policy?: RestartPolicy;
  hostNetwork?: boolean;
  deleting?: boolean;
}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      uid: 'uid-1',
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      containers: opts.containers ?? [{ name: 'app', image: 'busybox' }],
      ...(opts.init ? { initContainers: opts.init } : {}),
      ...(opts.policy ? { restartPolicy: opts.policy } : {}),
      ...(opts.hostNetwork ? { hostNetwork: true } : {}),
    },
  };
}

let seq = 0;
function cs(
  c: Container,
  state: ContainerStatusRT['state'],
  exitCode = 0,
  extra: Partial<ContainerStatusRT> = {},
): ContainerStatusRT {
  seq++;
  return {
    id: `c-${c.name}-${seq}`,
    name: c.name,
    state,
    createdAt: T0 + seq,
    startedAt: T0 + seq,
    finishedAt: state === 'exited' ? T0 + seq + 1 : 0,
    exitCode,
    image: c.image,
    imageRef: 'sha256:x',
    hash: hashContainerHex(c),
    restartCount: 0,
    reason: state === 'exited' ? (exitCode === 0 ? 'Completed' : 'Error') : '',
    message: '',
    ...extra,
  };
}

function sb(
  state: SandboxStatusRT['state'] = 'ready',
  attempt = 0,
  extra: Partial<SandboxStatusRT> = {},
): SandboxStatusRT {
  return {
    id: `sb-${attempt}`,
    state,
    attempt,
    createdAt: T0 + attempt,
    ip: '10.0.0.2',
    hostNetwork: false,
    ...extra,
  };
}

function st(sandboxes: SandboxStatusRT[], containers: ContainerStatusRT[]): PodStatusRT {
  return {
    id: 'uid-1',
    name: 'p',
    namespace: 'default',
    ips: [],
    sandboxStatuses: sandboxes,
    containerStatuses: [...containers].sort((a, b) => b.createdAt - a.createdAt),
    timestamp: T0,
  };
}

const app: Container = { name: 'app', image: 'busybox' };
const side: Container = { name: 'side', image: 'busybox', restartPolicy: 'Always' };
const init1: Container = { name: 'init1', image: 'busybox' };
const init2: Container = { name: 'init2', image: 'busybox' };

describe('computePodActions: sandbox (§8.2 + rule 1)', () => {
  it('new pod: create sandbox attempt 0 and start every container', () => {
    const a = computePodActions(mkPod({}), st([], []));
    expect(a).toMatchObject({
      killPod: true,
      createSandbox: true,
      attempt: 0,
      sandboxID: '',
      containersToStart: [0],
    });
    expect(a.reasons[0]).toBe('no sandbox yet → create sandbox attempt 0; start app');
  });

  it('sandbox not ready → kill pod and recreate with attempt+1', () => {
    const a = computePodActions(mkPod({}), st([sb('notready', 1)], [cs(app, 'exited', 137)]));
    expect(a).toMatchObject({
      killPod: true,
      createSandbox: true,
      attempt: 2,
      sandboxID: 'sb-1',
      containersToStart: [0],
    });
    expect(a.reasons[0]).toBe('sandbox not ready → kill pod and create sandbox attempt 2; start app');
  });

  it('two ready sandboxes → recreate', () => {
    const a = computePodActions(mkPod({}), st([sb('ready', 1), sb('ready', 0)], [cs(app, 'running')]));
    expect(a).toMatchObject({ createSandbox: true, attempt: 2, sandboxID: 'sb-1' });
  });

  it('hostNetwork change → recreate without a sandbox ID (no SandboxChanged)', () => {
    const a = computePodActions(mkPod({ hostNetwork: true }), st([sb('ready', 0)], [cs(app, 'running')]));
    expect(a).toMatchObject({ createSandbox: true, attempt: 1, sandboxID: '' });
  });

  it('ready sandbox without IP → recreate', () => {
    const a = computePodActions(mkPod({}), st([sb('ready', 0, { ip: '' })], [cs(app, 'running')]));
    expect(a).toMatchObject({ createSandbox: true, attempt: 1, sandboxID: 'sb-0' });
  });

  it('hostNetwork pod without IP is fine', () => {
    const a = computePodActions(
      mkPod({ hostNetwork: true }),
      st([sb('ready', 0, { ip: '', hostNetwork: true })], [cs(app, 'running')]),
    );
    expect(a).toMatchObject({ createSandbox: false, killPod: false, containersToStart: [] });
  });

  it('restartPolicy Never with containers that ran → kill pod only', () => {
    const a = computePodActions(mkPod({ policy: 'Never' }), st([sb('notready', 0)], [cs(app, 'exited', 1)]));
    expect(a).toMatchObject({ killPod: true, createSandbox: false, containersToStart: [] });
  });

  it('restartPolicy Never with no container status → still create a sandbox', () => {
    const a = computePodActions(mkPod({ policy: 'Never' }), st([sb('notready', 0)], []));
    expect(a).toMatchObject({ killPod: true, createSandbox: true, attempt: 1, containersToStart: [0] });
  });

  it('OnFailure: succeeded containers are not candidates; all succeeded → no sandbox', () => {
    const b: Container = { name: 'b', image: 'busybox' };
    const pod = mkPod({ containers: [app, b], policy: 'OnFailure' });
    const some = computePodActions(pod, st([sb('notready', 0)], [cs(app, 'exited', 0), cs(b, 'exited', 2)]));
    expect(some).toMatchObject({ createSandbox: true, containersToStart: [1] });
    const all = computePodActions(pod, st([sb('notready', 0)], [cs(app, 'exited', 0), cs(b, 'exited', 0)]));
    expect(all).toMatchObject({ killPod: true, createSandbox: false });
  });

  it('with init containers a new sandbox starts from init[0] (legacy and sidecar paths)', () => {
    const legacy = computePodActions(mkPod({ init: [init1, init2] }), st([], []));
    expect(legacy.nextInitContainerToStart?.name).toBe('init1');
    expect(legacy.containersToStart).toEqual([]);
    const sidecar = computePodActions(mkPod({ init: [side, init1] }), st([], []));
    expect(sidecar).toMatchObject({ initContainersToStart: [0], handleRestartableInitContainers: true });
  });
});

describe('computePodActions: legacy init containers (rule 3)', () => {
  const pod = mkPod({ init: [init1, init2] });
  const ready = sb('ready', 0);

  it('first init running → wait, nothing else', () => {
    const a = computePodActions(pod, st([ready], [cs(init1, 'running')]));
    expect(a).toMatchObject({ killPod: false, containersToStart: [] });
    expect(a.nextInitContainerToStart).toBeUndefined();
  });

  it('init1 done → start init2', () => {
    const a = computePodActions(pod, st([ready], [cs(init1, 'exited', 0)]));
    expect(a.nextInitContainerToStart?.name).toBe('init2');
  });

  it('all init done → start regular containers', () => {
    const a = computePodActions(pod, st([ready], [cs(init1, 'exited', 0), cs(init2, 'exited', 0)]));
    expect(a).toMatchObject({ containersToStart: [0] });
    expect(a.nextInitContainerToStart).toBeUndefined();
  });

  it('failed init restarts under Always/OnFailure, kills the pod under Never', () => {
    const failed = st([ready], [cs(init1, 'exited', 0), cs(init2, 'exited', 3)]);
    expect(computePodActions(pod, failed).nextInitContainerToStart?.name).toBe('init2');
    const never = computePodActions(mkPod({ init: [init1, init2], policy: 'Never' }), failed);
    expect(never).toMatchObject({ killPod: true });
    expect(never.nextInitContainerToStart).toBeUndefined();
  });

  it('OOMKilled init counts as failed even with exit 0', () => {
    const a = computePodActions(pod, st([ready], [cs(init1, 'exited', 0, { reason: 'OOMKilled' })]));
    expect(a.nextInitContainerToStart?.name).toBe('init1');
  });

  it('unknown init is killed before restart', () => {
    const s = cs(init1, 'unknown');
    const a = computePodActions(pod, st([ready], [s]));
    expect(a.nextInitContainerToStart?.name).toBe('init1');
    expect(a.containersToKill.get(s.id)?.message).toBe(
      'Init container is in "unknown" state, try killing it before restart',
    );
  });

  it('a running regular container means init is done', () => {
    const a = computePodActions(pod, st([ready], [cs(app, 'running')]));
    expect(a).toMatchObject({ killPod: false, containersToStart: [] });
    expect(a.nextInitContainerToStart).toBeUndefined();
  });
});

describe('computePodActions: sidecar init containers (rule 4)', () => {
  const ready = sb('ready', 0);
  const pod = mkPod({ init: [side, init1] });

  it('sidecar running → start the next init container', () => {
    const a = computePodActions(pod, st([ready], [cs(side, 'running')]));
    expect(a.initContainersToStart).toEqual([1]);
    expect(a.containersToStart).toEqual([]);
  });

  it('sidecar with a startup probe waits for its result', () => {
    const withProbe = mkPod({ init: [{ ...side, startupProbe: { exec: { command: ['true'] } } }, init1] });
    const a = computePodActions(withProbe, st([ready], [cs(side, 'running')]));
    expect(a.initContainersToStart).toEqual([]);
    const b = computePodActions(withProbe, st([ready], [cs(side, 'running')]), {
      startupResult: () => 'Failure',
    });
    expect([...b.containersToKill.values()][0]?.message).toBe('Init container side failed startup probe');
    expect(b.initContainersToStart).toEqual([0]);
  });

  it('init done and sidecar running → start regular containers', () => {
    const a = computePodActions(pod, st([ready], [cs(side, 'running'), cs(init1, 'exited', 0)]));
    expect(a.containersToStart).toEqual([0]);
    expect(a.initContainersToStart).toEqual([]);
  });

  it('exited sidecar restarts even under Never; failed regular init under Never kills the pod', () => {
    const never = mkPod({ init: [side, init1], policy: 'Never' });
    const a = computePodActions(
      never,
      st([ready], [cs(side, 'exited', 1), cs(init1, 'exited', 0), cs(app, 'running')]),
    );
    expect(a).toMatchObject({ killPod: false, initContainersToStart: [0] });
    const b = computePodActions(never, st([ready], [cs(side, 'running'), cs(init1, 'exited', 2)]));
    expect(b).toMatchObject({ killPod: true, initContainersToStart: [] });
  });

  it('sidecar definition change → kill and restart', () => {
    const s = cs(side, 'running', 0, { hash: 'deadbeef' });
    const a = computePodActions(pod, st([ready], [s, cs(init1, 'exited', 0), cs(app, 'running')]));
    expect(a.containersToKill.get(s.id)?.message).toBe('Init container side definition changed');
    expect(a.initContainersToStart).toEqual([0]);
  });

  it('sidecar liveness failure → kill and restart', () => {
    const live = mkPod({ init: [{ ...side, livenessProbe: { exec: { command: ['true'] } } }, init1] });
    const s = cs(side, 'running');
    const a = computePodActions(live, st([ready], [s, cs(init1, 'exited', 0), cs(app, 'running')]), {
      livenessResult: () => 'Failure',
    });
    expect(a.containersToKill.get(s.id)).toMatchObject({
      reason: 'LivenessProbe',
      message: 'Init container side failed liveness probe',
    });
  });

  it('unknown sidecar is killed and restarted', () => {
    const s = cs(side, 'unknown');
    const a = computePodActions(pod, st([ready], [s]));
    expect(a.containersToKill.get(s.id)?.reason).toBe('Unknown');
    expect(a.initContainersToStart).toEqual([0]);
  });

  it('created init container is started again', () => {
    const a = computePodActions(pod, st([ready], [cs(side, 'created')]));
    expect(a.initContainersToStart).toEqual([0]);
  });

  it('sidecar gone after initialization is restarted', () => {
    const a = computePodActions(pod, st([ready], [cs(app, 'running')]));
    expect(a.initContainersToStart).toEqual([0]);
    expect(a.killPod).toBe(false);
  });
});

describe('computePodActions: regular containers (rule 5)', () => {
  const ready = sb('ready', 0);

  it.each([
    ['Always', 0, true],
    ['Always', 1, true],
    ['OnFailure', 0, false],
    ['OnFailure', 1, true],
    ['Never', 1, false],
  ] as const)('restartPolicy %s, exit %d → restart %s', (policy, code, restart) => {
    const keep: Container = { name: 'keep', image: 'busybox' };
    const pod = mkPod({ containers: [app, keep], policy });
    const a = computePodActions(pod, st([ready], [cs(app, 'exited', code), cs(keep, 'running')]));
    expect(a.containersToStart).toEqual(restart ? [0] : []);
    expect(a.killPod).toBe(false);
  });

  it('explains the restart in words', () => {
    const a = computePodActions(mkPod({}), st([ready], [cs(app, 'exited', 1)]));
    expect(a.reasons).toEqual(['app exited 1; restartPolicy Always → restart']);
  });

  it('created and unknown containers are started; unknown ones killed first', () => {
    const b: Container = { name: 'b', image: 'busybox' };
    const u = cs(b, 'unknown');
    const a = computePodActions(
      mkPod({ containers: [app, b], policy: 'Never' }),
      st([ready], [cs(app, 'created'), u]),
    );
    expect(a.containersToStart).toEqual([0, 1]);
    expect(a.containersToKill.get(u.id)).toMatchObject({
      reason: 'Unknown',
      message: 'Container is in "unknown" state, try killing it before restart',
    });
  });

  it('hash change kills and restarts even under Never', () => {
    const s = cs(app, 'running', 0, { hash: '1234' });
    const a = computePodActions(mkPod({ policy: 'Never' }), st([ready], [s]));
    expect(a.containersToStart).toEqual([0]);
    expect(a.containersToKill.get(s.id)?.message).toBe('Container app definition changed, will be restarted');
  });

  it('liveness failure: kill + restart unless Never', () => {
    const s = cs(app, 'running');
    const ctx = { livenessResult: (id: string) => (id === s.id ? ('Failure' as const) : undefined) };
    const a = computePodActions(mkPod({}), st([ready], [s]), ctx);
    expect(a.containersToKill.get(s.id)).toMatchObject({
      reason: 'LivenessProbe',
      message: 'Container app failed liveness probe, will be restarted',
    });
    expect(a.containersToStart).toEqual([0]);
    expect(a.killPod).toBe(false);
    const never = computePodActions(mkPod({ policy: 'Never' }), st([ready], [s]), ctx);
    expect(never.containersToKill.get(s.id)?.message).toBe('Container app failed liveness probe');
    expect(never).toMatchObject({ containersToStart: [], killPod: true });
  });

  it('startup failure kills with StartupProbe', () => {
    const s = cs(app, 'running');
    const a = computePodActions(mkPod({}), st([ready], [s]), { startupResult: () => 'Failure' });
    expect(a.containersToKill.get(s.id)).toMatchObject({
      reason: 'StartupProbe',
      message: 'Container app failed startup probe, will be restarted',
    });
  });

  it('nothing to keep and nothing to start → kill pod', () => {
    const a = computePodActions(mkPod({ policy: 'Never' }), st([ready], [cs(app, 'exited', 0)]));
    expect(a).toMatchObject({ killPod: true, createSandbox: false, containersToStart: [] });
    expect(a.reasons.at(-1)).toBe('no container to keep or start → kill pod');
  });

  it('a pod being deleted never restarts containers', () => {
    const a = computePodActions(mkPod({ deleting: true }), st([ready], [cs(app, 'exited', 1)]));
    expect(a).toMatchObject({ killPod: true, containersToStart: [] });
  });

  it('steady state keeps everything', () => {
    const a = computePodActions(mkPod({}), st([ready], [cs(app, 'running')]));
    expect(a).toMatchObject({ killPod: false, createSandbox: false, containersToStart: [] });
    expect(a.containersToKill.size).toBe(0);
  });

  it('summarize names the containers', () => {
    const s = cs(app, 'running', 0, { hash: '1' });
    const pod = mkPod({});
    const sum = summarize(pod, computePodActions(pod, st([ready], [s])));
    expect(sum).toMatchObject({
      killPod: false,
      createSandbox: false,
      sandboxId: 'sb-0',
      containersToStart: ['app'],
      containersToKill: [
        { name: 'app', containerID: s.id, message: 'Container app definition changed, will be restarted' },
      ],
    });
  });
});
