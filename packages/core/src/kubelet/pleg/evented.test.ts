import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../clock/fake-clock.ts';
import { type ContainerEventResponse, CriError, GrpcCode, msToNs } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import type { TraceOf } from '../../events/trace.ts';
import { PodCache } from '../container/cache.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { FakeRuntime } from '../testing/fake-runtime.ts';
import { containerStatusRT, scriptPod, simKubelet } from '../testing/sim-kubelet.ts';
import { EventedPLEG } from './evented.ts';
import { GenericPLEG } from './generic.ts';

function eventedKubelet(breakStream: boolean) {
  const { clock, trace, sim, kl } = simKubelet({ eventedPleg: true });
  if (breakStream) {
    // containerd 1.6: the method does not exist
    sim.getContainerEvents = (_onEvent, onEnd) => {
      queueMicrotask(() =>
        onEnd(new CriError('GetContainerEvents', GrpcCode.UNIMPLEMENTED, 'unknown method')),
      );
      return { cancel: () => {} };
    };
  }
  const pod = scriptPod(clock, { uid: 'u1', name: 'once' }, 'sleep 8; exit 3', { restartPolicy: 'Never' });
  const modes = () =>
    (trace.since(0, (e) => e.type === 'pleg.mode') as TraceOf<'pleg.mode'>[]).map((e) => e.mode);
  const plegEvents = () =>
    (trace.since(0, (e) => e.type === 'pleg.event') as TraceOf<'pleg.event'>[]).map((e) => e.event);
  const relists = () => trace.since(0, (e) => e.type === 'pleg.relist').length;
  return { clock, kl, pod, modes, plegEvents, relists };
}

describe('EventedPLEG on the simulated node', () => {
  it('drives the pod from GetContainerEvents while the generic PLEG relists only every 300 s', async () => {
    const t = eventedKubelet(false);
    t.kl.start();
    t.kl.addPod(t.pod);
    expect(t.kl.nodeInfo().pleg.mode).toBe('evented');
    const phase = () => t.kl.getPodByUID('u1')?.status?.phase;
    // a start event stamped before the end of the sync that caused it wakes no worker: the 5 s global cache
    // tick does (the kubelet's evented PLEG behaves the same)
    expect(await t.clock.stepUntil(() => phase() === 'Running', 15_000)).toBe(true);
    expect(await t.clock.stepUntil(() => phase() === 'Failed', 15_000)).toBe(true);
    expect(t.plegEvents()).toEqual(expect.arrayContaining(['ContainerStarted', 'ContainerDied']));
    expect(t.relists()).toBe(1); // the generic PLEG's first relist only
    expect(t.modes()).toEqual(['evented']);
    expect(t.kl.nodeInfo().pleg.healthy).toBe(true);
    await t.kl.stop();
  });

  it('falls back to relisting every 1 s after 5 failed streams (UNIMPLEMENTED, as containerd 1.6)', async () => {
    const t = eventedKubelet(true);
    t.kl.start();
    await t.clock.step(0);
    expect(t.modes()).toEqual(['evented', 'generic']);
    expect(t.kl.nodeInfo().pleg.mode).toBe('generic');
    expect(t.kl.eventedPleg?.connectionErrors).toBe(5);
    t.kl.addPod(t.pod);
    expect(await t.clock.stepUntil(() => t.kl.getPodByUID('u1')?.status?.phase === 'Failed', 15_000)).toBe(
      true,
    );
    const before = t.relists();
    await t.clock.step(5_000);
    expect(t.relists() - before).toBeGreaterThanOrEqual(4);
    await t.kl.stop();
  });
});

describe('EventedPLEG cache writes', () => {
  it('stamps the cache with the event time, refuses older writes, and deletes the pod with its sandbox', async () => {
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock);
    const cache = new PodCache();
    cache.ignoreOlderWrites = true;
    const generic = new GenericPLEG(
      new FakeRuntime(clock),
      cache,
      clock,
      trace,
      { relistPeriodMs: 300_000, relistThresholdMs: 600_000 },
      10,
    );
    let onEvent: (ev: ContainerEventResponse) => void = () => {};
    const status = (state: 'running' | 'exited', at: number): PodStatusRT => ({
      id: 'u1',
      name: 'p',
      namespace: 'default',
      ips: [],
      sandboxStatuses: [{ id: 'sb1', state: 'ready', attempt: 0, createdAt: 0, ip: '', hostNetwork: false }],
      containerStatuses: [containerStatusRT({ id: 'c1', name: 'app', state })],
      timestamp: at,
    });
    const byEvent = new Map<string, PodStatusRT>();
    const pleg = new EventedPLEG(
      {
        streamEvents: (fn) => {
          onEvent = fn;
          return { cancel: () => {} };
        },
        generatePodStatus: (ev) => byEvent.get(`${ev.container_id}@${ev.created_at}`),
      },
      generic,
      cache,
      clock,
      trace,
      { maxStreamRetries: 5, fallbackRelistDuration: { relistPeriodMs: 1_000, relistThresholdMs: 180_000 } },
    );
    const send = (
      cid: string,
      type: ContainerEventResponse['container_event_type'],
      at: number,
      s: PodStatusRT,
    ) => {
      const created_at = msToNs(at);
      byEvent.set(`${cid}@${created_at}`, s);
      onEvent({
        container_id: cid,
        container_event_type: type,
        created_at,
        pod_sandbox_status: null,
        containers_statuses: [],
      });
    };
    pleg.start();
    const t = clock.now();
    const ch = generic.watch();
    send('c1', 'CONTAINER_CREATED_EVENT', t, status('running', t));
    expect(ch.length).toBe(0);
    send('c1', 'CONTAINER_STOPPED_EVENT', t + 2_000, status('exited', t + 2_000));
    send('c1', 'CONTAINER_STARTED_EVENT', t + 1_000, status('running', t + 1_000)); // late: refused
    expect(ch.tryReceive()?.value).toEqual({ id: 'u1', type: 'ContainerDied', data: 'c1' });
    expect(ch.length).toBe(0);
    expect(cache.get('u1').status.containerStatuses[0]?.state).toBe('exited');
    send('sb1', 'CONTAINER_DELETED_EVENT', t + 3_000, status('exited', t + 3_000));
    expect([ch.tryReceive()?.value.type, ch.tryReceive()?.value.type]).toEqual([
      'ContainerDied',
      'ContainerRemoved',
    ]);
    expect(cache.get('u1').status.containerStatuses).toEqual([]); // entry gone: reads as empty
    pleg.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
