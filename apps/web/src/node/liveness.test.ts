import { defaultKubeletConfiguration as config } from '@syncscope/core/kubelet/configuration';
import { describe, expect, it } from 'vitest';
import { T0, traceBuilder } from '../lib/fixtures.ts';
import { aggregatesOf } from '../lib/node-aggregates-cache.ts';
import { beat, serverWord } from './health-fixtures.ts';
import { beatPanelState, lastBeats, stalledText } from './liveness.ts';
import { howText, notListed } from './RecentlyDeleted.tsx';

describe('heartbeats of the node page', () => {
  const ev = traceBuilder();
  const events = [
    ev(0, { type: 'housekeeping', durationMs: 3, forgotten: 0, orphansKilled: 0, restarted: 0 }),
    ev(1, { type: 'pleg.relist', durationMs: 1, pods: 0, containers: 0, events: 0 }),
    ev(2, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }),
  ];

  it('finds the newest beat of each kind', () => {
    const b = lastBeats(events, config, undefined);
    expect(b.loop).toEqual({ last: T0 + 2000, periodMs: 1000 });
    expect(b.relist).toEqual({ last: T0 + 1000, periodMs: 1000 });
    expect(b.housekeeping).toEqual({ last: T0, periodMs: 2000 });
  });

  it('words a stalled beat with how long and the last time', () => {
    expect(stalledText('loop', { last: T0, silentMs: 2001 })).toMatch(
      /^no sync loop iteration for 2s \(last at \d\d:\d\d:\d\d\)$/,
    );
  });

  it('counts a skipped iteration as a beat that waits its back-off', () => {
    const b = lastBeats(
      [...events, ev(3, { type: 'loop.skipped', errors: ['runtime down'], backoffMs: 5000 })],
      config,
      undefined,
    );
    expect(b.loop).toEqual({ last: T0 + 3000, periodMs: 5000 });
  });

  it('lists removed pods newest first, once each, with how they left', () => {
    const b = traceBuilder();
    const gone = aggregatesOf([
      b(1, {
        type: 'config.update',
        op: 'DELETE',
        source: 'api',
        podUID: 'u1',
        pod: 'default/a',
        gracePeriodS: 30,
      }),
      b(2, { type: 'config.update', op: 'REMOVE', source: 'api', podUID: 'u1', pod: 'default/a' }),
      b(3, { type: 'config.update', op: 'REMOVE', source: 'file', podUID: 'u2', pod: 'team/b' }),
    ]).deleted;
    expect(gone.map((g) => `${g.namespace}/${g.name} ${howText(g)}`)).toEqual([
      'team/b removed by file',
      'default/a deleted (grace 30s)',
    ]);
    // a removal the table contradicts (the pod is still listed) is not a deleted pod
    expect(notListed(gone, 'u9\nu2').map((g) => g.name)).toEqual(['a']);
  });
});

describe('beatPanelState', () => {
  const live = { replay: false, staleSince: null, loaded: true, wallNow: T0 + 500 };
  const stalled = serverWord({ housekeeping: beat({ stalled: true, silentMs: 4200 }) });

  it('says replay, stale, loading, behind, empty, stalled with its words, or live, in that order', () => {
    expect(beatPanelState('housekeeping', stalled, { ...live, replay: true }).state).toBe('replay');
    expect(beatPanelState('housekeeping', stalled, { ...live, staleSince: T0 }).state).toBe('stale');
    expect(beatPanelState('housekeeping', stalled, { ...live, loaded: false }).state).toBe('loading');
    expect(beatPanelState('housekeeping', null, live).state).toBe('loading');
    expect(beatPanelState('housekeeping', stalled, { ...live, wallNow: T0 + 2001 }).state).toBe('behind');
    expect(beatPanelState('loop', serverWord({ loop: beat({ last: null }) }), live).state).toBe('empty');
    expect(beatPanelState('housekeeping', stalled, live)).toEqual({
      state: 'stalled',
      // the server's silence, carried on by the half second since its answer came
      detail: stalledText('housekeeping', { last: T0, silentMs: 4700 }),
    });
    expect(beatPanelState('loop', stalled, live)).toEqual({ state: 'live' });
  });

  it('never calls a beat stalled on its own clock: a late answer of a running loop is "behind"', () => {
    const running = serverWord({}, T0);
    for (const wallNow of [T0 + 5_000, T0 + 57_000]) {
      expect(beatPanelState('loop', running, { ...live, wallNow }).state).toBe('behind');
    }
  });
});
