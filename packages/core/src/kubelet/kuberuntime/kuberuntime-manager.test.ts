import { beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { FakeClock, settle } from '../../clock/fake-clock.ts';
import { CriError, GrpcCode } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import type { TraceOf } from '../../events/trace.ts';
import { defaultKubeletConfiguration, OWNERSHIP_LABEL } from '../configuration.ts';
import { Recorder } from '../events/recorder.ts';
import { PodContainerDeletor } from '../pod-container-deletor.ts';
import { containerStatusRT } from '../testing/sim-kubelet.ts';
import { FakeCriRuntime } from './fake-cri-runtime.ts';
import { KubeGenericRuntimeManager } from './kuberuntime-manager.ts';

function mkPod(over: Partial<Pod['spec']> = {}, image = 'busybox:1.36'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: {
      containers: [
        { name: 'app', image, command: ['sh', '-c', 'exit 1'], resources: { limits: { memory: '64Mi' } } },
      ],
      ...over,
    },
  };
}

let clock: FakeClock;
let cri: FakeCriRuntime;
let trace: TraceRecorder;
let recorder: Recorder;
let m: KubeGenericRuntimeManager;

beforeEach(() => {
  clock = new FakeClock();
  cri = new FakeCriRuntime(clock);
  trace = new TraceRecorder(clock);
  recorder = new Recorder(clock, trace, 'node');
  m = new KubeGenericRuntimeManager({ cri, clock, trace, recorder, config: defaultKubeletConfiguration });
  cri.present.set('busybox:1.36', 1_000);
});

/** One kubelet sync: read the status as the PLEG would, then SyncPod. */
async function sync(pod: Pod) {
  const status = await m.getPodStatus(pod.metadata.uid ?? '', pod.metadata.name, 'default');
  return m.syncPod(pod, status);
}

const reasons = (uid = 'uid-1') => recorder.forPod(uid).map((e) => `${e.reason}: ${e.message}`);
const mutating = () =>
  cri.called.filter((c) => !['ListPodSandbox', 'ListContainers', 'ContainerStatus'].includes(c));

describe('KubeGenericRuntimeManager.syncPod', () => {
  it('starts a new pod: sandbox first, then image, create, start', async () => {
    const pod = mkPod();
    const r = await sync(pod);
    expect(mutating()).toEqual([
      'RunPodSandbox',
      'PodSandboxStatus',
      'ImageStatus',
      'CreateContainer',
      'StartContainer',
    ]);
    // KillPod is set with CreateSandbox, so even a new pod carries a (no-op) KillPodSandbox result
    expect(r.actions).toEqual([
      { action: 'KillPodSandbox', target: 'uid-1' },
      { action: 'CreatePodSandbox', target: 'web_default(uid-1)' },
      { action: 'ConfigPodSandbox', target: 'sb1' },
      { action: 'StartContainer', target: 'app' },
    ]);
    expect(reasons()).toEqual([
      'Pulled: Container image "busybox:1.36" already present on machine',
      'Created: Created container: app',
      'Started: Started container app',
    ]);
    const sb = [...cri.sandboxes.values()][0]!;
    expect(sb.config).toMatchObject({
      hostname: 'web',
      log_directory: '/var/log/pods/default_web_uid-1',
      labels: { 'io.kubernetes.pod.uid': 'uid-1', [OWNERSHIP_LABEL]: 'true' },
      linux: {
        cgroup_parent: '/kubepods/burstable/poduid-1',
        security_context: { namespace_options: { network: 'POD' } },
      },
    });
    const c = [...cri.containers.values()][0]!;
    expect(c.config).toMatchObject({
      metadata: { name: 'app', attempt: 0 },
      log_path: 'app/0.log',
      command: ['sh', '-c', 'exit 1'],
      image: { image: 'sha256:busybox:1.36', user_specified_image: 'busybox:1.36' },
      linux: { resources: { memory_limit_in_bytes: String(64 * 1024 * 1024) } },
      annotations: { 'io.kubernetes.container.restartCount': '0' },
    });
    const calls = trace.since(0).filter((e): e is TraceOf<'runtime.call'> => e.type === 'runtime.call');
    expect(calls.find((e) => e.method === 'CreateContainer')).toMatchObject({
      podUID: 'uid-1',
      pod: 'default/web',
      container: 'app',
      attempt: 0,
    });
    expect(r.plan?.reasons).toEqual(['no sandbox yet → create sandbox attempt 0; start app']);
  });

  it('hostNetwork pods get a NODE network namespace and no hostname', async () => {
    await sync(mkPod({ hostNetwork: true }));
    const sb = [...cri.sandboxes.values()][0]!;
    expect(sb.config.hostname).toBe('');
    expect(sb.config.linux?.security_context?.namespace_options?.network).toBe('NODE');
  });

  it('restarts at once after the first exit and reports CrashLoopBackOff after the second', async () => {
    const pod = mkPod();
    await sync(pod);
    await clock.step(1_000);
    cri.exit(cri.containersNamed('app')[0]!.id, 1);

    await clock.step(1_000);
    const second = await sync(pod);
    expect(second.actions.find((a) => a.action === 'StartContainer')?.error).toBeUndefined();
    const instances = cri.containersNamed('app');
    expect(instances).toHaveLength(2);
    expect(instances[1]!.config).toMatchObject({ log_path: 'app/1.log', metadata: { attempt: 1 } });

    await clock.step(1_000);
    cri.exit(instances[1]!.id, 1);
    await clock.step(2_000);
    const third = await sync(pod);
    expect(third.actions.find((a) => a.action === 'StartContainer')).toEqual({
      action: 'StartContainer',
      target: 'app',
      error: 'CrashLoopBackOff',
      message: 'back-off 10s restarting failed container=app pod=web_default(uid-1)',
    });
    expect(reasons()).toContain(
      'BackOff: Back-off restarting failed container app in pod web_default(uid-1)',
    );
    const bo = trace.since(0).find((e) => e.type === 'backoff');
    expect(bo).toMatchObject({
      kind: 'container',
      container: 'app',
      delayS: 10,
      exitCode: 1,
      restartCount: 1,
    });

    // the window runs from the exit: 10 s after it the container starts again, with the next count
    await clock.step(8_000);
    const fourth = await sync(pod);
    expect(fourth.actions.find((a) => a.action === 'StartContainer')?.error).toBeUndefined();
    expect(cri.containersNamed('app')[2]?.config.metadata?.attempt).toBe(2);
    expect(
      m.backOff.get(
        `web_default_uid-1_app_${cri.containersNamed('app')[2]?.annotations['io.kubernetes.container.hash']}`,
      ),
    ).toBe(20_000);
  });

  it('ErrImagePull then ImagePullBackOff until the window ends', async () => {
    const pod = mkPod({}, 'nope:1');
    const first = await sync(pod);
    const pullErr =
      'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nope:1": not found';
    expect(first.actions.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'app',
      error: 'ErrImagePull',
      message: pullErr,
    });
    expect(reasons()).toEqual([
      'Pulling: Pulling image "nope:1"',
      `Failed: Failed to pull image "nope:1": ${pullErr}`,
      'Failed: Error: ErrImagePull',
    ]);
    expect(trace.since(0).find((e) => e.type === 'backoff')).toMatchObject({
      kind: 'image',
      image: 'nope:1',
      delayS: 10,
    });

    await clock.step(5_000);
    const second = await sync(pod);
    expect(second.actions.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'app',
      error: 'ImagePullBackOff',
      message: `Back-off pulling image "nope:1": ErrImagePull: ${pullErr}`,
    });
    expect(cri.called.filter((c) => c === 'PullImage')).toHaveLength(1);
    expect(reasons()).toContain('BackOff: Back-off pulling image "nope:1"');
    expect(reasons()).toContain('Failed: Error: ImagePullBackOff');

    await clock.step(5_000);
    cri.registry.add('nope:1');
    const third = await sync(pod);
    expect(third.actions.at(-1)?.error).toBeUndefined();
    expect(reasons()).toContain(
      'Pulled: Successfully pulled image "nope:1" in 0s (0s including waiting). Image size: 4096 bytes.',
    );
  });

  it('Always pulls even when present; Never fails when missing', async () => {
    const always = mkPod();
    always.spec.containers[0]!.imagePullPolicy = 'Always';
    cri.registry.add('busybox:1.36');
    await sync(always);
    expect(cri.called).toContain('PullImage');

    const never = mkPod({}, 'missing:1');
    never.metadata.uid = 'uid-2';
    never.spec.containers[0]!.imagePullPolicy = 'Never';
    const r = await sync(never);
    expect(r.actions.at(-1)).toMatchObject({ error: 'ErrImageNeverPull' });
    expect(reasons('uid-2')[0]).toBe(
      'ErrImageNeverPull: Container image "missing:1" is not present with pull policy of Never',
    );
  });

  it('untagged images are asked for with :latest', async () => {
    cri.registry.add('busybox:latest');
    await sync(mkPod({}, 'busybox'));
    expect(cri.calls.find((c) => c.method === 'PullImage')?.args[0]).toMatchObject({
      image: 'busybox:latest',
    });
  });

  it('CreateContainer and StartContainer failures give their tokens and "Error: <msg>"', async () => {
    cri.injectError('CreateContainer', new CriError('CreateContainer', GrpcCode.UNKNOWN, 'no space left'));
    const r = await sync(mkPod());
    expect(r.actions.at(-1)).toEqual({
      action: 'StartContainer',
      target: 'app',
      error: 'CreateContainerError',
      message: 'no space left',
    });
    cri.injectError(
      'StartContainer',
      new CriError('StartContainer', GrpcCode.UNKNOWN, 'exec: "sh": not found'),
    );
    const r2 = await sync(mkPod());
    expect(r2.actions.at(-1)).toMatchObject({ error: 'RunContainerError', message: 'exec: "sh": not found' });
    expect(reasons()).toContain('Failed: Error: no space left');
    expect(reasons()).toContain('Failed: Error: exec: "sh": not found');
  });

  it('a failed sandbox gives FailedCreatePodSandBox and stops the sync', async () => {
    cri.injectError('RunPodSandbox', new CriError('RunPodSandbox', GrpcCode.UNKNOWN, 'cni failed'));
    const r = await sync(mkPod());
    expect(r.actions).toEqual([
      { action: 'KillPodSandbox', target: 'uid-1' },
      {
        action: 'CreatePodSandbox',
        target: 'web_default(uid-1)',
        error: 'CreatePodSandboxError',
        message:
          'Failed to create sandbox for pod "web_default(uid-1)": RunPodSandbox failed: rpc error: code = Unknown desc = cni failed',
      },
    ]);
    expect(reasons()).toEqual([
      'FailedCreatePodSandBox: Failed to create pod sandbox: RunPodSandbox failed: rpc error: code = Unknown desc = cni failed',
    ]);
  });

  it('a pod whose log directory name passes NAME_MAX fails before RunPodSandbox, as the kubelet does', async () => {
    const uid = '0f0e0d0c-0b0a-4909-8807-060504030201';
    const long = mkPod();
    long.metadata = { name: 'n'.repeat(253), namespace: 'default', uid };
    const r = await sync(long);
    const dir = `/var/log/pods/default_${'n'.repeat(253)}_${uid}`;
    expect(r.actions.at(-1)).toEqual({
      action: 'CreatePodSandbox',
      target: `${'n'.repeat(253)}_default(${uid})`,
      error: 'CreatePodSandboxError',
      message: `Failed to create log directory for pod "${'n'.repeat(253)}_default(${uid})": mkdir ${dir}: file name too long`,
    });
    expect(mutating()).not.toContain('RunPodSandbox');
    expect(reasons(uid)).toEqual([
      `FailedCreatePodSandBox: Failed to create pod sandbox: mkdir ${dir}: file name too long`,
    ]);

    // 255 bytes is still a name: `default_` + 210 + `_` + a 36-character UID
    const fits = mkPod();
    fits.metadata = { name: 'f'.repeat(210), namespace: 'default', uid };
    expect((await sync(fits)).actions.every((a) => a.error === undefined)).toBe(true);
    expect(mutating()).toContain('RunPodSandbox');
  });

  it('a dead sandbox is replaced: SandboxChanged, kill, new attempt', async () => {
    const pod = mkPod();
    await sync(pod);
    await cri.stopPodSandbox('sb1');
    cri.called.length = 0;
    const r = await sync(pod);
    expect(reasons()).toContain('SandboxChanged: Pod sandbox changed, it will be killed and re-created.');
    expect(mutating()).toEqual([
      'PodSandboxStatus',
      'StopPodSandbox',
      'RunPodSandbox',
      'PodSandboxStatus',
      'ImageStatus',
      'CreateContainer',
      'StartContainer',
    ]);
    expect(r.actions.map((a) => a.action)).toEqual([
      'KillPodSandbox',
      'CreatePodSandbox',
      'ConfigPodSandbox',
      'StartContainer',
    ]);
    expect([...cri.sandboxes.values()].map((s) => s.metadata?.attempt)).toEqual([0, 1]);
  });

  it('a changed image kills the running container and starts the new one', async () => {
    const pod = mkPod();
    await sync(pod);
    cri.present.set('busybox:1.37', 1);
    const changed = mkPod({}, 'busybox:1.37');
    const r = await sync(changed);
    expect(r.actions.map((a) => a.action)).toEqual(['KillContainer', 'ConfigPodSandbox', 'StartContainer']);
    expect(reasons()).toContain('Killing: Container app definition changed, will be restarted');
  });
});

describe('KubeGenericRuntimeManager.killPod', () => {
  it('stops containers with at least 2 s, runs preStop first, then stops every sandbox', async () => {
    const pod = mkPod({ terminationGracePeriodSeconds: 1 });
    pod.spec.containers[0]!.lifecycle = { preStop: { exec: { command: ['sh', '-c', 'echo bye'] } } };
    await sync(pod);
    const [running] = await m.getPods(false);
    cri.called.length = 0;
    const r = await m.killPod(pod, running!);
    expect(cri.called).toEqual(['ExecSync', 'StopContainer', 'StopPodSandbox']);
    expect(cri.calls.find((c) => c.method === 'StopContainer')?.args[1]).toBe(2);
    expect(r.actions).toEqual([
      { action: 'KillContainer', target: 'app' },
      { action: 'KillPodSandbox', target: 'uid-1' },
    ]);
    expect(reasons()).toContain('Killing: Stopping container app');
  });

  it('skips preStop when no grace is left', async () => {
    const pod = mkPod({ terminationGracePeriodSeconds: 0 });
    pod.spec.containers[0]!.lifecycle = { preStop: { exec: { command: ['true'] } } };
    await sync(pod);
    const [running] = await m.getPods(false);
    cri.called.length = 0;
    await m.killPod(pod, running!);
    expect(cri.called).toEqual(['StopContainer', 'StopPodSandbox']);
    expect(cri.calls.find((c) => c.method === 'StopContainer')?.args[1]).toBe(2);
  });

  it('uses the override, treats NotFound as stopped, and rebuilds orphans from annotations', async () => {
    const pod = mkPod({ terminationGracePeriodSeconds: 45 });
    await sync(pod);
    const [running] = await m.getPods(false);
    cri.injectError('StopContainer', new CriError('StopContainer', GrpcCode.NOT_FOUND, 'not found'));
    const r = await m.killPod(undefined, running!);
    expect(r.actions.every((a) => a.error === undefined)).toBe(true);
    expect(cri.calls.find((c) => c.method === 'StopContainer')?.args[1]).toBe(45);

    await sync(pod);
    const [again] = await m.getPods(false);
    await m.killPod(pod, again!, 1);
    expect(cri.calls.filter((c) => c.method === 'StopContainer').at(-1)?.args[1]).toBe(2);
  });

  it("traces each StopContainer's grace: the spec's, a DELETE's via the override, the 2 s minimum", async () => {
    const pod = mkPod({ terminationGracePeriodSeconds: 30 });
    await sync(pod);
    const stops = () =>
      (
        trace.since(
          0,
          (e) => e.type === 'runtime.call' && e.method === 'StopContainer',
        ) as TraceOf<'runtime.call'>[]
      ).map((e) => [e.gracePeriodS, e.override]);
    const running = async (uid: string) => {
      const rp = (await m.getPods(false)).find((p) => p.id === uid);
      if (!rp) throw new Error(`${uid} is not running`);
      return rp;
    };
    // a kill SyncPod decides itself (no override): the spec's grace
    await m.killPod(pod, await running('uid-1'));
    // a terminating pod's worker passes the effective grace, here a DELETE's 5 s
    await sync(pod);
    const deleted = { ...pod, metadata: { ...pod.metadata, deletionGracePeriodSeconds: 5 } };
    await m.killPod(deleted, await running('uid-1'), 5);
    // an override below the minimum is raised to 2 s
    const other = { ...pod, metadata: { ...pod.metadata, uid: 'uid-2', name: 'other' } };
    await sync(other);
    await m.killPod(other, await running('uid-2'), 0);
    expect(stops()).toEqual([
      [30, undefined],
      [5, true],
      [2, true],
    ]);
  });

  it('reports a failing StopContainer as KillContainerError', async () => {
    const pod = mkPod();
    await sync(pod);
    const [running] = await m.getPods(false);
    cri.injectError('StopContainer');
    const r = await m.killPod(pod, running!);
    expect(r.actions[0]).toMatchObject({ action: 'KillContainer', error: 'KillContainerError' });
  });
});

describe('KubeGenericRuntimeManager.deleteContainer', () => {
  it('reads the status first: a container already removed fails with NotFound there, and the deletor goes on', async () => {
    const pod = mkPod();
    await sync(pod);
    const [first] = await m.getPods(false);
    if (!first) throw new Error('the pod is not running');
    await m.killPod(pod, first);
    await sync(pod);
    const exited = [...cri.containers.keys()];
    expect(exited).toHaveLength(2);
    const [a, b] = exited as [string, string];
    const mark = trace.next - 1;
    await m.deleteContainer(a, { podUID: 'uid-1', container: 'app' });
    await expect(m.deleteContainer(a, { podUID: 'uid-1', container: 'app' })).rejects.toThrow(
      `failed to get container status "${a}"`,
    );
    const calls = trace.since(mark, (e) => e.type === 'runtime.call') as TraceOf<'runtime.call'>[];
    expect(calls.map((e) => [e.method, e.code])).toEqual([
      ['ContainerStatus', undefined],
      ['RemoveContainer', undefined],
      ['ContainerStatus', GrpcCode.NOT_FOUND],
    ]);
    // the pod container deletor logs the failure and removes the next one
    const deletor = new PodContainerDeletor(m);
    const exitedApp = (id: string) => containerStatusRT({ id, name: 'app', state: 'exited', createdAt: 0 });
    deletor.deleteContainersInPod(
      '',
      {
        id: 'uid-1',
        name: 'web',
        namespace: 'default',
        ips: [],
        containerStatuses: [exitedApp(a), exitedApp(b)],
        sandboxStatuses: [],
        timestamp: 0,
      },
      true,
    );
    for (let i = 0; i < 50 && cri.containers.has(b); i++) await settle();
    expect(cri.containers.has(b)).toBe(false);
    deletor.stop();
  });
});

describe('KubeGenericRuntimeManager listing', () => {
  it('getPods groups by pod UID and marks ownership; getPodStatus reads annotations', async () => {
    const pod = mkPod();
    await sync(pod);
    await clock.step(1_000);
    cri.exit(cri.containersNamed('app')[0]!.id, 3);
    await clock.step(1_000);
    await sync(pod);

    const all = await m.getPods(true);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ id: 'uid-1', name: 'web', namespace: 'default', managed: true });
    expect(all[0]!.containers).toHaveLength(2);
    expect(await m.getPods(false).then((p) => p[0]!.containers.map((c) => c.state))).toEqual(['running']);

    const st = await m.getPodStatus('uid-1', 'web', 'default');
    expect(st.ips).toEqual(['10.88.0.2']);
    expect(st.containerStatuses.map((c) => [c.state, c.restartCount, c.exitCode])).toEqual([
      ['running', 1, 0],
      ['exited', 0, 3],
    ]);
    expect(st.containerStatuses[0]!.hash).toMatch(/^[0-9a-f]+$/);

    const foreign = cri.containers.get(cri.containersNamed('app')[0]!.id)!;
    delete foreign.labels[OWNERSHIP_LABEL];
    expect((await m.getPods(true))[0]!.managed).toBe(false);
  });

  it('getPodStatus ignores containers that vanish between list and status', async () => {
    await sync(mkPod());
    cri.injectError('ContainerStatus', new CriError('ContainerStatus', GrpcCode.NOT_FOUND, 'gone'));
    const st = await m.getPodStatus('uid-1', 'web', 'default');
    expect(st.containerStatuses).toEqual([]);
    expect(st.sandboxStatuses).toHaveLength(1);
  });

  it('removeOldExitedContainers keeps the newest exited instance of that name', async () => {
    const pod = mkPod();
    for (let i = 0; i < 3; i++) {
      await sync(pod);
      await clock.step(1_000);
      cri.exit(cri.containersNamed('app').at(-1)!.id, 1);
      await clock.step(20_000 * (i + 1));
    }
    expect(cri.containersNamed('app')).toHaveLength(3);
    const removed = await m.removeOldExitedContainers('uid-1', 'app');
    expect(removed).toHaveLength(2);
    expect(cri.containersNamed('app').map((c) => c.config.metadata?.attempt)).toEqual([2]);
  });
});
