import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../clock/fake-clock.ts';
import type { RuntimePod } from './runtime.ts';
import { RuntimeCache } from './runtime-cache.ts';

function setup() {
  const clock = new FakeClock();
  const calls: boolean[] = [];
  let pods: RuntimePod[] = [];
  let fail = false;
  const getter = {
    getPods: async (all: boolean) => {
      calls.push(all);
      if (fail) throw new Error('rpc error: code = Unavailable');
      return pods;
    },
  };
  const cache = new RuntimeCache(getter, clock, 3_000);
  const pod = (id: string): RuntimePod => ({
    id,
    name: id,
    namespace: 'default',
    createdAt: 0,
    containers: [],
    sandboxes: [],
    managed: true,
  });
  return {
    clock,
    calls,
    cache,
    pod,
    setPods: (p: RuntimePod[]) => (pods = p),
    setFail: (f: boolean) => (fail = f),
  };
}

describe('RuntimeCache', () => {
  it('lists running pods (all=false) and relists only once the listing is older than the period', async () => {
    const { clock, calls, cache, pod, setPods } = setup();
    setPods([pod('a')]);
    expect((await cache.getPods()).map((p) => p.id)).toEqual(['a']);
    setPods([pod('a'), pod('b')]);
    await clock.step(2_000); // the next housekeeping: 2 s ≤ 3 s, the cached listing is used
    expect((await cache.getPods()).map((p) => p.id)).toEqual(['a']);
    await clock.step(1_000); // exactly the period: still fresh (strictly older is stale)
    expect(await cache.getPods()).toHaveLength(1);
    await clock.step(1_000);
    expect((await cache.getPods()).map((p) => p.id)).toEqual(['a', 'b']);
    expect(calls).toEqual([false, false]);
  });

  it('a failed listing rejects and keeps the last one; forceUpdateIfOlder lists when older', async () => {
    const { clock, calls, cache, pod, setPods, setFail } = setup();
    setPods([pod('a')]);
    await cache.getPods();
    const listedAt = clock.now();
    await clock.step(4_000);
    setFail(true);
    await expect(cache.getPods()).rejects.toThrow('Unavailable');
    setFail(false);
    setPods([]);
    await cache.forceUpdateIfOlder(listedAt); // not older than asked: no listing
    expect(calls).toHaveLength(2);
    await cache.forceUpdateIfOlder(clock.now());
    expect(await cache.getPods()).toEqual([]);
    expect(calls).toHaveLength(3);
  });
});
