import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../cri/list-codec.ts';
import { imageSpec } from '../../cri/messages.ts';
import type { Container, PodSandbox } from '../../cri/types.ts';
import { RuntimePodGrouper } from './runtime-pods.ts';

const OWNER = 'example.com/managed-by';
const podLabels = (uid: string) => ({
  'io.kubernetes.pod.uid': uid,
  'io.kubernetes.pod.name': `pod-${uid}`,
  'io.kubernetes.pod.namespace': 'default',
  [OWNER]: 'true',
});

function sandbox(uid: string, createdMs: number, state: PodSandbox['state'] = 'SANDBOX_READY'): PodSandbox {
  return {
    id: `sb-${uid}`,
    metadata: { name: `pod-${uid}`, uid, namespace: 'default', attempt: 0 },
    state,
    created_at: `${createdMs}000000`,
    labels: podLabels(uid),
    annotations: {},
    runtime_handler: '',
  } as PodSandbox;
}

function container(uid: string, name: string, state: Container['state'] = 'CONTAINER_RUNNING'): Container {
  return {
    id: `${uid}-${name}`,
    pod_sandbox_id: `sb-${uid}`,
    metadata: { name, attempt: 0 },
    image: imageSpec({ image: 'busybox' }),
    image_ref: 'sha256:bb',
    state,
    created_at: '1700000000000000000',
    labels: { ...podLabels(uid), 'io.kubernetes.container.name': name },
    annotations: { 'io.kubernetes.container.hash': 'h1' },
    image_id: '',
  };
}

describe('RuntimePodGrouper', () => {
  it('groups by pod UID, newest pod first, managed only when every item carries the ownership label', () => {
    const g = new RuntimePodGrouper(OWNER);
    const foreign = { ...container('b', 'x'), labels: { 'io.kubernetes.pod.uid': 'b' } } as Container;
    const pods = g.group([sandbox('a', 1000), sandbox('b', 2000)], [container('a', 'c1'), foreign]);
    expect(pods.map((p) => [p.id, p.name, p.managed, p.containers.map((c) => c.name)])).toEqual([
      ['b', 'pod-b', false, ['x']],
      ['a', 'pod-a', true, ['c1']],
    ]);
    expect(pods[1]?.containers[0]).toMatchObject({ state: 'running', hash: 'h1', createdAt: 1700000000000 });
    expect(pods[1]?.sandboxes[0]).toEqual({ id: 'sb-a', state: 'ready', createdAt: 1000, attempt: 0 });
  });

  it('hands out the same frozen entries for unchanged frozen items, new ones for changed items', () => {
    const g = new RuntimePodGrouper(OWNER);
    const sb = deepFreeze(sandbox('a', 1000));
    const c1 = deepFreeze(container('a', 'c1'));
    const c2 = deepFreeze(container('a', 'c2'));
    const first = g.group([sb], [c1, c2])[0];
    expect(g.group([sb], [c1, c2])[0]).toBe(first); // the same listing: the same frozen pod
    expect(g.group([sb], [c2, c1])[0]).toBe(first); // in another order (containerd's map order) too
    expect(Object.isFrozen(first) && Object.isFrozen(first?.containers)).toBe(true);
    const second = g.group([sb], [c1])[0]; // c2 went away: a new pod, the entries kept are the same
    expect(second).not.toBe(first);
    expect(second?.containers).toEqual([first?.containers[0]]);
    expect(second?.containers[0]).toBe(first?.containers[0]);
    expect(second?.sandboxes[0]).toBe(first?.sandboxes[0]);
    expect(Object.isFrozen(second?.containers[0])).toBe(true);
    const exited = deepFreeze(container('a', 'c1', 'CONTAINER_EXITED'));
    const third = g.group([sb], [exited])[0];
    expect(third?.containers[0]).not.toBe(first?.containers[0]);
    expect(third?.containers[0]?.state).toBe('exited');
    // items that are not frozen are converted afresh every time
    const open = container('a', 'c1');
    expect(g.group([], [open])[0]?.containers[0]).not.toBe(g.group([], [open])[0]?.containers[0]);
  });
});
