import { defaultKubeletConfiguration as config } from '@syncscope/core/kubelet/configuration';
import { describe, expect, it } from 'vitest';
import { T0, traceBuilder } from '../lib/fixtures.ts';
import { beatPanelState, beatState, lastBeats, stalledText } from './liveness.ts';
import { deletedPods, notListed } from './RecentlyDeleted.tsx';

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

  it('is stalled only past twice its period, with the last time', () => {
    const b = lastBeats(events, config, undefined);
    expect(beatState(b.loop, T0 + 4000).state).toBe('live');
    const s = beatState(b.loop, T0 + 4001);
    expect(s).toEqual({ state: 'stalled', last: T0 + 2000, silentMs: 2001 });
    if (s.state === 'stalled')
      expect(stalledText('loop', s)).toMatch(/^no sync loop iteration for 2s \(last at \d\d:\d\d:\d\d\)$/);
    expect(beatState(b.housekeeping, T0 + 4000).state).toBe('live');
    expect(beatState(b.housekeeping, T0 + 4001).state).toBe('stalled');
    expect(beatState({ last: null, periodMs: 1000 }, T0).state).toBe('none');
  });

  it('counts a skipped iteration as a beat that waits its back-off', () => {
    const b = lastBeats(
      [...events, ev(3, { type: 'loop.skipped', errors: ['runtime down'], backoffMs: 5000 })],
      config,
      undefined,
    );
    expect(b.loop).toEqual({ last: T0 + 3000, periodMs: 5000 });
    expect(beatState(b.loop, T0 + 12_000).state).toBe('live');
  });

  it('lists removed pods newest first, once each', () => {
    const b = traceBuilder();
    const gone = deletedPods([
      b(1, { type: 'config.update', op: 'DELETE', source: 'api', podUID: 'u1', pod: 'default/a' }),
      b(2, { type: 'config.update', op: 'REMOVE', source: 'api', podUID: 'u1', pod: 'default/a' }),
      b(3, { type: 'config.update', op: 'REMOVE', source: 'api', podUID: 'u2', pod: 'team/b' }),
    ]);
    expect(gone.map((g) => `${g.namespace}/${g.name}`)).toEqual(['team/b', 'default/a']);
    // a removal the pods list contradicts (the pod is still listed) is not a deleted pod
    expect(notListed(gone, 'u9\nu2').map((g) => g.name)).toEqual(['a']);
  });
});

describe('beatPanelState', () => {
  it('says replay, stale, loading, empty, stalled with its words, or live, in that order of precedence', () => {
    const live = { replay: false, staleSince: null, loaded: true };
    const stalled = { state: 'stalled', last: T0, silentMs: 4_200 } as const;
    expect(beatPanelState('loop', stalled, { ...live, replay: true }).state).toBe('replay');
    expect(beatPanelState('loop', stalled, { ...live, staleSince: T0 }).state).toBe('stale');
    expect(beatPanelState('loop', stalled, { ...live, loaded: false }).state).toBe('loading');
    expect(beatPanelState('loop', { state: 'none' }, live).state).toBe('empty');
    expect(beatPanelState('housekeeping', stalled, live)).toEqual({
      state: 'stalled',
      detail: stalledText('housekeeping', stalled),
    });
    expect(beatPanelState('loop', { state: 'live', last: T0 }, live)).toEqual({ state: 'live' });
  });
});
