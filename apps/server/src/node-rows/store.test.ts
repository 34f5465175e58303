/**
 * NodeRows on a FakeClock: the events of a tick become one batch with each changed row once (its newest
 * state), a pod that did not change is not in it, nothing leaves between ticks, and a cursor resumes with
 * what changed after it, or with every row when it cannot.
 */
import { FakeClock } from '@syncscope/core/clock';
import type { TraceEvent, TracePayload } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { NodeRows, type RowsBatch, TICK_MS } from './store.ts';

function feed() {
  const clock = new FakeClock();
  let seq = 0;
  const store = new NodeRows({ clock, run: 'r1', maxRemovals: 2 });
  const batches: RowsBatch[] = [];
  store.subscribe((b) => batches.push(b));
  const add = (p: TracePayload) => store.add({ ...p, seq: ++seq, time: clock.now() } as TraceEvent);
  const pod = (name: string) => ({ podUID: `uid-${name}`, pod: `default/${name}` });
  const adds = (name: string) => add({ type: 'config.update', op: 'ADD', source: 'api', ...pod(name) });
  const running = (name: string, restarts: number) =>
    add({
      type: 'status.update',
      ...pod(name),
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            image: 'busybox',
            imageID: '',
            ready: true,
            started: true,
            restartCount: restarts,
            lastState: {},
            state: { running: { startedAt: new Date(clock.now()).toISOString() } },
          },
        ],
      },
    });
  const removes = (name: string) => add({ type: 'config.update', op: 'REMOVE', source: 'api', ...pod(name) });
  return { clock, store, batches, adds, running, removes };
}

describe('NodeRows', () => {
  it('sends a row that changed ten times in a tick once, with its newest state, and no other row', async () => {
    const { clock, store, batches, adds, running } = feed();
    adds('a');
    adds('b');
    await clock.step(TICK_MS);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.rows.map((r) => r.name).sort()).toEqual(['a', 'b']);
    const first = store.cursor;

    for (let i = 1; i <= 10; i++) running('a', i);
    await clock.step(TICK_MS - 1);
    expect(batches).toHaveLength(1);
    await clock.step(1);
    expect(batches).toHaveLength(2);
    const batch = batches[1] as RowsBatch;
    expect(batch.rows).toHaveLength(1);
    expect(batch.rows[0]).toMatchObject({ name: 'a', restartCount: 10, restarts: { text: '10' } });
    expect(batch.rows[0]?.status.text).toBe('Running');
    expect(batch.cursor).not.toBe(first);

    // a quiet tick sends nothing
    await clock.step(TICK_MS * 4);
    expect(batches).toHaveLength(2);

    const resumed = store.since(first);
    expect(resumed.full).toBe(false);
    expect(resumed.rows.map((r) => r.name)).toEqual(['a']);
    expect(store.since(store.cursor)).toMatchObject({ full: false, rows: [], removed: [] });
    store.close();
  });

  it('sends removals, resumes past them, and answers every row to a cursor it cannot resume', async () => {
    const { clock, store, batches, adds, removes } = feed();
    for (const n of ['a', 'b', 'c', 'd']) adds(n);
    await clock.step(TICK_MS);
    const start = store.cursor;
    removes('a');
    await clock.step(TICK_MS);
    expect(batches.at(-1)).toMatchObject({ rows: [], removed: ['uid-a'] });
    expect(store.since(start)).toMatchObject({ full: false, rows: [], removed: ['uid-a'] });

    // two removals are kept: a third forgets the first, and a cursor from before it gets every row
    removes('b');
    await clock.step(TICK_MS);
    removes('c');
    await clock.step(TICK_MS);
    const full = store.since(start);
    expect(full.full).toBe(true);
    expect(full.rows.map((r) => r.name)).toEqual(['d']);
    expect(store.since('other.1').full).toBe(true);
    expect(store.since('r1.999').full).toBe(true);
    store.close();
    expect(clock.pendingTimers).toBe(0);
  });

  it('does not bring a removed pod back on its late events (container GC after the REMOVE)', async () => {
    const { clock, store, batches, adds, running, removes } = feed();
    adds('a');
    running('a', 0);
    await clock.step(TICK_MS);
    removes('a');
    await clock.step(TICK_MS);
    expect(batches.at(-1)).toMatchObject({ removed: ['uid-a'] });
    const sent = batches.length;
    running('a', 0);
    await clock.step(TICK_MS);
    expect(batches.length).toBe(sent);
    expect(store.rows().rows).toEqual([]);
    store.close();
  });
});
