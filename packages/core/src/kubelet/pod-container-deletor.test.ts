import { describe, expect, it } from 'vitest';
import { settle } from '../clock/fake-clock.ts';
import type { ContainerStatusRT, PodStatusRT } from './container/runtime.ts';
import { getContainersToDeleteInPod, PodContainerDeletor } from './pod-container-deletor.ts';
import { containerStatusRT } from './testing/sim-kubelet.ts';

function c(
  id: string,
  name: string,
  state: ContainerStatusRT['state'],
  createdAt: number,
): ContainerStatusRT {
  return containerStatusRT({ id, name, state, createdAt });
}

function podStatus(containers: ContainerStatusRT[]): PodStatusRT {
  return {
    id: 'u1',
    name: 'p',
    namespace: 'default',
    ips: [],
    containerStatuses: containers,
    sandboxStatuses: [],
    timestamp: 0,
  };
}

const status = podStatus([
  c('a3', 'app', 'running', 3),
  c('a2', 'app', 'exited', 2),
  c('a1', 'app', 'exited', 1),
  c('a0', 'app', 'exited', 0),
  c('s1', 'side', 'exited', 1),
  c('s0', 'side', 'exited', 0),
]);

describe('getContainersToDeleteInPod', () => {
  it('selects exited instances of the dead container beyond the newest one kept', () => {
    expect(getContainersToDeleteInPod('a2', status, 1).map((x) => x.id)).toEqual(['a1', 'a0']);
    expect(getContainersToDeleteInPod('s1', status, 1).map((x) => x.id)).toEqual(['s0']);
  });
  it('selects nothing for an ID that is not a container of the pod (a sandbox)', () => {
    expect(getContainersToDeleteInPod('sandbox-1', status, 1)).toEqual([]);
  });
  it('with no filter and nothing kept, selects every exited container', () => {
    const ids = getContainersToDeleteInPod('', status, 0).map((x) => x.id);
    expect(ids.sort()).toEqual(['a0', 'a1', 'a2', 's0', 's1']);
  });
});

describe('PodContainerDeletor', () => {
  it('removes one at a time; at most 50 requests wait, more are dropped', async () => {
    const removed: string[] = [];
    let release: () => void = () => {};
    const deletor = new PodContainerDeletor({
      deleteContainer: (id) => {
        removed.push(id);
        return new Promise<void>((r) => (release = r)); // the runtime is slow
      },
    });
    const many = podStatus(Array.from({ length: 60 }, (_, i) => c(`x${i}`, 'app', 'exited', 100 - i)));
    deletor.deleteContainersInPod('x0', many, false);
    await settle();
    expect(removed).toEqual(['x1']); // x0 (newest) kept; x1 in flight
    expect(deletor.pending).toBe(49);
    expect(deletor.dropped).toBe(9); // 59 candidates, 50 queued
    release();
    await settle();
    expect(removed).toEqual(['x1', 'x2']);
    deletor.stop();
  });

  it('removes every exited container when the pod content goes', async () => {
    const removed: string[] = [];
    const deletor = new PodContainerDeletor({
      deleteContainer: async (id) => {
        removed.push(id);
      },
    });
    deletor.deleteContainersInPod('a2', status, true);
    await settle();
    expect(removed.sort()).toEqual(['a0', 'a1', 'a2', 's0', 's1']);
    deletor.stop();
  });
});

describe('PodContainerDeletor.pause', () => {
  it('waits for the removal in flight, drops the queued ones, and sends again after resume', async () => {
    const sent: string[] = [];
    let finish: () => void = () => {};
    const runtime = {
      deleteContainer: (id: string) => {
        sent.push(id);
        return new Promise<void>((resolve) => {
          finish = resolve;
        });
      },
    };
    const d = new PodContainerDeletor(runtime, 0);
    const status = (ids: string[]) => ({
      id: 'u',
      name: 'p',
      namespace: 'default',
      ips: [],
      sandboxStatuses: [],
      timestamp: 0,
      containerStatuses: ids.map((id, i) =>
        containerStatusRT({ id, name: 'app', state: 'exited', createdAt: 10 - i }),
      ),
    });
    d.deleteContainersInPod('', status(['a', 'b', 'c']), true);
    await settle();
    expect(sent).toEqual(['a']);
    let paused = false;
    const p = d.pause().then(() => {
      paused = true;
    });
    await settle();
    expect(paused).toBe(false); // 'a' is still being removed
    finish();
    await p;
    expect(sent).toEqual(['a']); // 'b' and 'c' were dropped, never sent
    d.resume();
    d.deleteContainersInPod('', status(['d']), true);
    await settle();
    expect(sent).toEqual(['a', 'd']);
  });
});
