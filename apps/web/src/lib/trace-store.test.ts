import { describe, expect, it } from 'vitest';
import { POD_REF, traceBuilder } from './fixtures.ts';
import { applyEvents, emptyTraceState, fromEvents, podEvents } from './trace-store.ts';

describe('applyEvents', () => {
  it('appends new events and indexes them by pod', () => {
    const ev = traceBuilder();
    const batch = [
      ev(0, { type: 'config.update', op: 'ADD', source: 'api', ...POD_REF }),
      ev(0, { type: 'loop.iteration', source: 'config', pods: 1, durationMs: 1 }),
      ev(1, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
    ];
    const s = applyEvents(emptyTraceState(), batch);
    expect(s.lastSeq).toBe(3);
    expect(s.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(podEvents(s, POD_REF.podUID).map((e) => e.type)).toEqual(['config.update', 'worker.state']);
    expect(podEvents(s, 'other')).toEqual([]);
  });

  it('drops events at or below the last seq, so a replayed batch changes nothing', () => {
    const ev = traceBuilder();
    const a = ev(0, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    const b = ev(1, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    const s1 = applyEvents(emptyTraceState(), [a, b]);
    const s2 = applyEvents(s1, [a, b]);
    expect(s2).toBe(s1);
    const c = ev(2, { type: 'loop.iteration', source: 'pleg', pods: 0, durationMs: 0 });
    const s3 = applyEvents(s1, [b, c, c]);
    expect(s3.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(s1.events).toHaveLength(2);
  });

  it('keeps only the newest `limit` events, overall and per pod', () => {
    const ev = traceBuilder();
    const batch = Array.from({ length: 5 }, (_, i) =>
      ev(i, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }),
    );
    const s = applyEvents(emptyTraceState(3), batch);
    expect(s.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(podEvents(s, POD_REF.podUID).map((e) => e.seq)).toEqual([3, 4, 5]);
  });
});

describe('applyEvents over a long stream', () => {
  it('keeps the newest `limit` events through many batches, and earlier states never change', () => {
    const ev = traceBuilder();
    const other = { podUID: 'uid-other', pod: 'default/other' };
    let s = emptyTraceState(10);
    const snapshots: { state: ReturnType<typeof emptyTraceState>; seqs: number[]; pod: number[] }[] = [];
    for (let b = 0; b < 12; b++) {
      const batch = Array.from({ length: 3 }, (_, i) =>
        ev(b * 3 + i, {
          type: 'worker.update',
          updateType: 'SyncPodSync',
          coalesced: false,
          ...(i === 2 ? other : POD_REF),
        }),
      );
      s = applyEvents(s, batch);
      snapshots.push({
        state: s,
        seqs: s.events.map((e) => e.seq),
        pod: podEvents(s, POD_REF.podUID).map((e) => e.seq),
      });
    }
    expect(s.events.map((e) => e.seq)).toEqual([27, 28, 29, 30, 31, 32, 33, 34, 35, 36]);
    expect(podEvents(s, 'uid-other').map((e) => e.seq)).toEqual(
      [6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36].slice(-10),
    );
    for (const snap of snapshots) {
      expect(snap.state.events.map((e) => e.seq)).toEqual(snap.seqs);
      expect(podEvents(snap.state, POD_REF.podUID).map((e) => e.seq)).toEqual(snap.pod);
    }
    // appending to an older state forks it: the newer one is unaffected
    const old = snapshots[3]?.state ?? s;
    const forked = applyEvents(old, [
      ev(100, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }),
    ]);
    expect(forked.events.at(-1)?.seq).toBe(37);
    expect(forked.events.at(-2)?.seq).toBe(12);
    expect(s.events.at(-1)?.seq).toBe(36);
  });
});

describe('fromEvents', () => {
  it('merges pages given in any order, without duplicates', () => {
    const ev = traceBuilder();
    const evs = Array.from({ length: 4 }, (_, i) =>
      ev(i, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }),
    );
    const [e1, e2, e3, e4] = evs;
    const s = fromEvents([e3, e4, e1, e2, e3].filter((e) => e !== undefined));
    expect(s.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(s.lastSeq).toBe(4);
  });
});
