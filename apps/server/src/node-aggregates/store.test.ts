/**
 * NodeAggregates on a FakeClock: the loop iterations of a second are counted by source, the events of a
 * tick become one batch (a second that changed ten times is sent once, with its newest counts), nothing is
 * sent and no timer waits while nothing happens, the window forgets what is older than five minutes, and a
 * cursor resumes with what changed after it (everything when it cannot).
 */
import { FakeClock } from '@syncscope/core/clock';
import { AGGREGATE_WINDOW_MS, MAX_DELETED, type NodeAggregatesWire } from '@syncscope/core/pod-state';
import type { LoopSource, TraceEvent, TracePayload } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { NodeAggregates, TICK_MS } from './store.ts';

function feed() {
  const clock = new FakeClock();
  let seq = 0;
  const store = new NodeAggregates({ clock, run: 'r1' });
  const batches: NodeAggregatesWire[] = [];
  store.subscribe((b) => batches.push(b));
  const add = (p: TracePayload) => store.add({ ...p, seq: ++seq, time: clock.now() } as TraceEvent);
  const iteration = (source: LoopSource, durationMs = 1) =>
    add({ type: 'loop.iteration', source, pods: 1, durationMs });
  const relist = (durationMs: number) =>
    add({ type: 'pleg.relist', durationMs, pods: 1, containers: 1, events: 0 });
  const housekeeping = (durationMs: number) =>
    add({ type: 'housekeeping', durationMs, forgotten: 0, orphansKilled: 0, restarted: 0 });
  const config = (op: 'DELETE' | 'REMOVE', name: string, gracePeriodS?: number) =>
    add({
      type: 'config.update',
      op,
      source: 'api',
      podUID: `uid-${name}`,
      pod: `default/${name}`,
      ...(gracePeriodS !== undefined ? { gracePeriodS } : {}),
    });
  // the clock starts on a round second: the first bucket starts at t0
  return { t0: clock.now(), clock, store, batches, add, iteration, relist, housekeeping, config };
}

describe('NodeAggregates', () => {
  it('counts a second’s iterations by source and sends them once per tick, nothing while idle', async () => {
    const { t0, clock, store, batches, iteration, relist, housekeeping, add } = feed();
    for (let i = 0; i < 7; i++) iteration('sync', i);
    iteration('pleg', 3);
    relist(12);
    housekeeping(40);
    expect(batches).toHaveLength(0);
    await clock.step(TICK_MS);
    expect(batches).toHaveLength(1);
    const first = batches[0] as NodeAggregatesWire;
    expect(first.loop).toEqual([{ t: t0, n: [0, 1, 7, 0, 0], maxMs: [0, 3, 6, 0, 0] }]);
    expect(first.relists).toMatchObject([{ time: t0, durationMs: 12, events: 0 }]);
    expect(first.housekeeping).toMatchObject([{ time: t0, durationMs: 40 }]);

    // ten more in the same second: one batch, the second once with its newest counts, no beat again
    for (let i = 0; i < 10; i++) iteration('probe');
    await clock.step(TICK_MS);
    expect(batches).toHaveLength(2);
    expect(batches[1]).toMatchObject({
      loop: [{ t: t0, n: [0, 1, 7, 10, 0] }],
      relists: [],
      housekeeping: [],
    });

    // events that change nothing here (a pod's status) arm no tick; an idle store holds no timer
    add({
      type: 'worker.state',
      podUID: 'u',
      pod: 'default/p',
      from: 'SyncPod',
      to: 'SyncPod',
    } as TracePayload);
    expect(clock.pendingTimers).toBe(0);
    await clock.step(TICK_MS * 8);
    expect(batches).toHaveLength(2);
    store.close();
  });

  it('keeps five minutes: older seconds and beats leave, and a resume sends only what changed', async () => {
    const { t0, clock, store, batches, iteration, relist } = feed();
    iteration('sync');
    relist(5);
    await clock.step(TICK_MS);
    const early = store.cursor;
    await clock.step(2_000);
    iteration('config');
    await clock.step(TICK_MS);
    expect(store.since(early)).toMatchObject({
      full: false,
      loop: [{ t: t0 + 2_000, n: [1, 0, 0, 0, 0] }],
      relists: [],
    });
    expect(store.since(store.cursor)).toMatchObject({ full: false, loop: [], relists: [], deleted: [] });
    expect(store.since('other.1').full).toBe(true);
    expect(store.since('r1.999').full).toBe(true);

    await clock.step(AGGREGATE_WINDOW_MS + 1_000);
    iteration('housekeeping');
    await clock.step(TICK_MS);
    const all = store.current();
    expect(all.windowStart).toBe(clock.now() - TICK_MS - AGGREGATE_WINDOW_MS);
    expect(all.loop.map((s) => s.n)).toEqual([[0, 0, 0, 0, 1]]);
    expect(all.relists).toEqual([]);
    expect(all.from).toBe(t0);
    expect(batches.at(-1)?.windowStart).toBe(all.windowStart);
    store.close();
  });

  it('lists removed pods newest first, how they left, and only the newest ones', async () => {
    const { clock, store, config } = feed();
    config('DELETE', 'graceful', 30);
    config('REMOVE', 'graceful');
    config('REMOVE', 'forced');
    await clock.step(TICK_MS);
    expect(store.current().deleted).toMatchObject([
      { name: 'forced', namespace: 'default', how: 'removed', source: 'api' },
      { name: 'graceful', how: 'deleted', graceS: 30, uid: 'uid-graceful' },
    ]);
    for (let i = 0; i < MAX_DELETED + 5; i++) config('REMOVE', `p${i}`);
    await clock.step(TICK_MS);
    const deleted = store.current().deleted;
    expect(deleted).toHaveLength(MAX_DELETED);
    expect(deleted[0]?.name).toBe(`p${MAX_DELETED + 4}`);
    store.close();
    expect(clock.pendingTimers).toBe(0);
  });
});
