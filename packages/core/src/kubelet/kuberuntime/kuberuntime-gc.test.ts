import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../clock/fake-clock.ts';
import { CriError, type CriRuntime } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { OWNERSHIP_LABEL } from '../configuration.ts';
import { defaultGCPolicy } from '../container/container-gc.ts';
import { tracedCall } from './instrumented-services.ts';
import { ContainerGC, type PodLogsFS } from './kuberuntime-gc.ts';
import type { GCContainer, GCSandbox, PodStateProvider } from './kuberuntime-gc-plan.ts';

const labels = (uid: string, own = true): Record<string, string> => ({
  'io.kubernetes.pod.uid': uid,
  'io.kubernetes.pod.name': `pod-${uid}`,
  'io.kubernetes.pod.namespace': 'default',
  ...(own ? { [OWNERSHIP_LABEL]: 'true' } : {}),
});

/** A runtime holding the given lists, recording GC's calls; `failStop` sandboxes refuse StopPodSandbox. */
function fakeRuntime(sandboxes: GCSandbox[], containers: GCContainer[], failStop: string[] = []) {
  const called: string[] = [];
  const cri = {
    listPodSandbox: async () => [...sandboxes],
    listContainers: async () => [...containers],
    containerStatus: async (id: string) => ({ status: { id }, info: {} }),
    stopContainer: async (id: string, timeout: number) => {
      called.push(`StopContainer ${id} ${timeout}`);
    },
    removeContainer: async (id: string) => {
      called.push(`RemoveContainer ${id}`);
      containers.splice(
        containers.findIndex((c) => c.id === id),
        1,
      );
    },
    stopPodSandbox: async (id: string) => {
      called.push(`StopPodSandbox ${id}`);
      if (failStop.includes(id)) throw new CriError('StopPodSandbox', 2, 'cannot stop');
    },
    removePodSandbox: async (id: string) => {
      called.push(`RemovePodSandbox ${id}`);
      sandboxes.splice(
        sandboxes.findIndex((s) => s.id === id),
        1,
      );
    },
  } as unknown as CriRuntime;
  return { cri, called };
}

const sandbox = (id: string, uid: string, own = true): GCSandbox => ({
  id,
  metadata: { name: `pod-${uid}`, uid, namespace: 'default', attempt: 0 },
  state: 'SANDBOX_NOTREADY',
  created_at: '1000',
  labels: labels(uid, own),
});

const container = (
  id: string,
  uid: string,
  state: GCContainer['state'],
  grace?: string,
  createdAt = '1000',
): GCContainer => ({
  id,
  pod_sandbox_id: `sb-${uid}`,
  metadata: { name: 'app', attempt: 0 },
  state,
  created_at: createdAt,
  labels: { ...labels(uid), 'io.kubernetes.container.name': 'app' },
  annotations: grace ? { 'io.kubernetes.pod.terminationGracePeriod': grace } : {},
});

const gone = (...uids: string[]): PodStateProvider => ({
  shouldPodContentBeRemoved: (uid) => uids.includes(uid),
  shouldPodRuntimeBeRemoved: (uid) => uids.includes(uid),
});

function fakeFS(dirs: string[] | Error) {
  const removed: string[] = [];
  const fs: PodLogsFS = {
    readDir: async () => {
      if (dirs instanceof Error) throw dirs;
      return [...dirs];
    },
    removeAll: async (path) => {
      removed.push(path);
    },
  };
  return { fs, removed };
}

function newGC(cri: CriRuntime, podState: PodStateProvider, fs: PodLogsFS) {
  const clock = new FakeClock();
  return new ContainerGC({
    cri,
    call: tracedCall(clock, new TraceRecorder(clock)),
    clock,
    podStateProvider: podState,
    ownershipLabel: OWNERSHIP_LABEL,
    podLogsDirectory: '/logs',
    minimumGracePeriodSeconds: 2,
    fs,
  });
}

describe('ContainerGC (GarbageCollect)', () => {
  it("removes a deleted pod's containers, then, from a fresh listing, its now empty sandbox, then its logs", async () => {
    const { cri, called } = fakeRuntime(
      [sandbox('sb-gone', 'gone')],
      [container('c1', 'gone', 'CONTAINER_EXITED')],
    );
    const { fs, removed } = fakeFS(['default_pod-gone_gone', 'other_theirs_gone-too']);
    const r = await newGC(cri, gone('gone', 'gone-too'), fs).garbageCollect(defaultGCPolicy, true, false);
    expect(called).toEqual(['RemoveContainer c1', 'StopPodSandbox sb-gone', 'RemovePodSandbox sb-gone']);
    // the other directory's UID was never seen with our label: never removed
    expect(removed).toEqual(['/logs/default_pod-gone_gone']);
    expect(r).toEqual({ containers: 1, sandboxes: 1, podLogDirs: 1, errors: [] });
  });

  it('stops a container in unknown state first, with the grace period its annotations keep (at least 2 s)', async () => {
    const { cri, called } = fakeRuntime(
      [],
      [
        container('u1', 'gone', 'CONTAINER_UNKNOWN', '30'),
        container('u2', 'gone', 'CONTAINER_UNKNOWN', '0', '2000'),
      ],
    );
    await newGC(cri, gone('gone'), fakeFS([]).fs).garbageCollect(defaultGCPolicy, true, false);
    expect(called).toEqual([
      'StopContainer u1 30',
      'RemoveContainer u1',
      'StopContainer u2 2',
      'RemoveContainer u2',
    ]);
  });

  it('leaves a sandbox it could not stop for the next run, and never touches a foreign one', async () => {
    const { cri, called } = fakeRuntime(
      [sandbox('stuck', 'gone'), sandbox('theirs', 'other', false)],
      [],
      ['stuck'],
    );
    const r = await newGC(cri, gone('gone', 'other'), fakeFS([]).fs).garbageCollect(
      defaultGCPolicy,
      true,
      false,
    );
    expect(called).toEqual(['StopPodSandbox stuck']);
    expect(r.sandboxes).toBe(0);
  });

  it('takes a missing pod logs directory as empty, and reports one it cannot read', async () => {
    const { cri } = fakeRuntime([], []);
    const enoent = Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    const ok = await newGC(cri, gone(), fakeFS(enoent).fs).garbageCollect(defaultGCPolicy, true, false);
    expect(ok.errors).toEqual([]);
    const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const bad = await newGC(cri, gone(), fakeFS(eacces).fs).garbageCollect(defaultGCPolicy, true, false);
    expect(bad.errors).toEqual(['failed to read podLogsDirectory "/logs": EACCES: permission denied']);
  });
});
