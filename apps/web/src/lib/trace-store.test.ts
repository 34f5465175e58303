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
