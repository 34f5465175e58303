import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import type { TraceOf } from '../../events/trace.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import { PodCache } from '../container/cache.ts';
import { FakeRuntime } from '../testing/fake-runtime.ts';
import { convertState, GenericPLEG, generateEvents } from './generic.ts';
import type { PlegContainerState, PodLifecycleEvent } from './pleg.ts';

const states: PlegContainerState[] = ['running', 'exited', 'unknown', 'non-existent'];

// every (old, new) pair and what the kubelet's generateEvents emits for it
const table: Record<PlegContainerState, Record<PlegContainerState, string[]>> = {
  running: {
    running: [],
    exited: ['ContainerDied'],
    unknown: ['ContainerChanged'],
    'non-existent': ['ContainerDied', 'ContainerRemoved'],
  },
  exited: {
    running: ['ContainerStarted'],
    exited: [],
    unknown: ['ContainerChanged'],
    'non-existent': ['ContainerRemoved'],
  },
  unknown: {
    running: ['ContainerStarted'],
    exited: ['ContainerDied'],
    unknown: [],
    'non-existent': ['ContainerDied', 'ContainerRemoved'],
  },
  'non-existent': {
    running: ['ContainerStarted'],
    exited: ['ContainerDied'],
    unknown: ['ContainerChanged'],
    'non-existent': [],
  },
};

function pod(uid: string, containers: string[]): AdmittedPod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid, name: uid, namespace: 'default' },
    spec: { containers: containers.map((name) => ({ name, image: 'busybox' })), restartPolicy: 'Always' },
  };
}

function setup(capacity = 1000) {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const runtime = new FakeRuntime(clock);
  const cache = new PodCache();
  const pleg = new GenericPLEG(
    runtime,
    cache,
    clock,
    trace,
    { relistPeriodMs: 1000, relistThresholdMs: 180_000 },
    capacity,
  );
  const drain = (): PodLifecycleEvent[] => {
    const out: PodLifecycleEvent[] = [];
    for (let e = pleg.watch().tryReceive(); e; e = pleg.watch().tryReceive()) out.push(e.value);
    return out;
  };
  return { clock, trace, runtime, cache, pleg, drain };
}

async function emptyStatus(uid: string) {
  return {
    id: uid,
    name: uid,
    namespace: 'default',
    ips: [],
    containerStatuses: [],
    sandboxStatuses: [],
    timestamp: 0,
  };
}

describe('generateEvents', () => {
  for (const oldState of states) {
    for (const newState of states) {
      it(`${oldState} → ${newState}`, () => {
        expect(generateEvents('p', 'c', oldState, newState).map((e) => e.type)).toEqual(
          table[oldState][newState],
        );
      });
    }
  }

  it('folds CRI CREATED into unknown', () => {
    expect(convertState('created')).toBe('unknown');
    expect(convertState('running')).toBe('running');
  });
});

describe('GenericPLEG.relist', () => {
  it('emits ContainerStarted for a new sandbox and container, writes the cache at the time the status was read', async () => {
    const { clock, runtime, cache, pleg, drain, trace } = setup();
    const p = pod('u1', ['app']);
    await runtime.syncPod(p, await emptyStatus('u1'));
    const t = clock.now();
    await pleg.relist();
    const evs = drain();
    expect(evs.map((e) => [e.type, e.data])).toEqual([
      ['ContainerStarted', 'c-2'],
      ['ContainerStarted', 'sb-1'],
    ]);
    const entry = cache.get('u1');
    expect(entry.status.containerStatuses[0]?.state).toBe('running');
    expect(entry.status.ips).toEqual(['10.88.0.1']);
    expect(cache.globalTimestamp).toBe(t);
    const named = trace.since(0, (e) => e.type === 'pleg.event') as TraceOf<'pleg.event'>[];
    expect(named.find((e) => e.containerID === 'c-2')?.containerName).toBe('app');

    // nothing changed: no events, no GetPodStatus
    runtime.calls.length = 0;
    await pleg.relist();
    expect(drain()).toEqual([]);
    expect(runtime.calls).toEqual(['GetPods']);
  });

  it("stamps each pod's cache entry with the time its own status was read, not the relist's start", async () => {
    const { clock, runtime, cache, pleg } = setup();
    await runtime.syncPod(pod('u1', ['app']), await emptyStatus('u1'));
    await runtime.syncPod(pod('u2', ['app']), await emptyStatus('u2'));
    // each status read takes 300 ms of the clock, as a busy runtime's would
    const read = runtime.getPodStatus.bind(runtime);
    runtime.getPodStatus = async (uid, name, namespace) => {
      await clock.step(300);
      return read(uid, name, namespace);
    };
    const start = clock.now();
    await pleg.relist();
    expect(cache.globalTimestamp).toBe(start);
    // a worker whose last sync ended 100 ms into the relist asks for something newer: the pod read at
    // start + 300 answers at once; the one read at the start does not
    const woke: string[] = [];
    for (const uid of ['u1', 'u2']) void cache.getNewerThan(uid, start + 100).then(() => woke.push(uid));
    await Promise.resolve();
    expect(woke).toHaveLength(1);
  });

  it('reports ContainerDied on exit and keeps the pod IPs once the sandbox is gone', async () => {
    const { runtime, cache, pleg, drain } = setup();
    const p = pod('u1', ['app']);
    await runtime.syncPod(p, await emptyStatus('u1'));
    await pleg.relist();
    drain();
    runtime.exit('u1', 'app', 1);
    await runtime.killPod(p, {
      id: 'u1',
      name: 'u1',
      namespace: 'default',
      createdAt: 0,
      containers: [],
      sandboxes: [],
      managed: true,
    });
    await pleg.relist();
    expect(drain().map((e) => e.type)).toEqual(['ContainerDied', 'ContainerDied']);
    expect(cache.get('u1').status.ips).toEqual(['10.88.0.1']);
  });

  it('carries the exit code of a ContainerDied from the status just read, as the kubelet\'s "container finished" line does', async () => {
    const { runtime, pleg, trace } = setup();
    await runtime.syncPod(pod('u1', ['app']), await emptyStatus('u1'));
    await pleg.relist();
    runtime.exit('u1', 'app', 3);
    await pleg.relist();
    const died = trace.since(0, (e) => e.type === 'pleg.event' && e.event === 'ContainerDied');
    expect(died.map((e) => (e as TraceOf<'pleg.event'>).exitCode)).toEqual([3]);
    // a ContainerStarted carries none
    const started = trace.since(0, (e) => e.type === 'pleg.event' && e.event === 'ContainerStarted');
    expect(started.every((e) => !('exitCode' in e))).toBe(true);
  });

  it('deletes the cache entry of a vanished pod and emits Died+Removed for what was running', async () => {
    const { runtime, cache, pleg, drain } = setup();
    await runtime.syncPod(pod('u1', ['app']), await emptyStatus('u1'));
    await pleg.relist();
    drain();
    runtime.pods.delete('u1');
    await pleg.relist();
    expect(drain().map((e) => e.type)).toEqual([
      'ContainerDied',
      'ContainerRemoved',
      'ContainerDied',
      'ContainerRemoved',
    ]);
    expect(cache.get('u1').status.containerStatuses).toEqual([]);
  });

  it('re-inspects a pod whose status read failed and emits its events then', async () => {
    const { runtime, cache, pleg, drain } = setup();
    await runtime.syncPod(pod('u1', ['app']), await emptyStatus('u1'));
    runtime.failNext('GetPodStatus', 'rpc error: code = Unavailable');
    await pleg.relist();
    expect(drain()).toEqual([]);
    expect(cache.get('u1').error?.message).toBe('rpc error: code = Unavailable');
    await pleg.relist();
    expect(drain().map((e) => e.type)).toEqual(['ContainerStarted', 'ContainerStarted']);
    expect(cache.get('u1').error).toBeUndefined();
  });

  it('drops and counts events when the channel is full', async () => {
    const { runtime, pleg, drain } = setup(1);
    await runtime.syncPod(pod('u1', ['a', 'b']), await emptyStatus('u1'));
    await pleg.relist();
    expect(drain()).toHaveLength(1);
    expect(pleg.discardedEvents).toBe(2);
  });

  it('unblocks getNewerThan waiters with the global timestamp', async () => {
    const { clock, cache, pleg } = setup();
    let got = false;
    void cache.getNewerThan('nobody', clock.now()).then(() => (got = true));
    await clock.step(1);
    await pleg.relist();
    await clock.step(0);
    expect(got).toBe(true);
  });
});

describe('GenericPLEG.healthy', () => {
  it('is unhealthy before the first relist and after 3 minutes without one', async () => {
    const { clock, pleg } = setup();
    expect(pleg.healthy()).toEqual([false, 'pleg has yet to be successful']);
    await pleg.relist();
    expect(pleg.healthy()[0]).toBe(true);
    await clock.step(180_000);
    expect(pleg.healthy()[0]).toBe(true);
    await clock.step(1_000);
    expect(pleg.healthy()).toEqual([false, 'pleg was last seen active 3m1s ago; threshold is 3m0s']);
  });

  it('a failed listing does not count as a relist', async () => {
    const { runtime, pleg } = setup();
    runtime.failNext('GetPods', 'down');
    await pleg.relist();
    expect(pleg.healthy()[0]).toBe(false);
  });

  it('start() relists at once and then every period', async () => {
    const { clock, runtime, pleg } = setup();
    pleg.start();
    await clock.step(0);
    expect(runtime.calls.filter((c) => c === 'GetPods')).toHaveLength(1);
    await clock.step(3_000);
    expect(runtime.calls.filter((c) => c === 'GetPods')).toHaveLength(4);
    pleg.stop();
    await clock.step(5_000);
    expect(runtime.calls.filter((c) => c === 'GetPods')).toHaveLength(4);
  });
});
