import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { chainsOf, wakeChains } from './causality.ts';
import { POD_REF, T0, traceBuilder } from './fixtures.ts';

/**
 * As the engine records it: a config ADD wakes the worker (idle: taken at once); two PLEG events wake it
 * twice, the second while the first's run is in progress (pending, taken at that run's result, started
 * after the next relist); a resync with no cause; a ContainerRemoved wakes nothing.
 */
function trace(): TraceEvent[] {
  const ev = traceBuilder(1);
  const sync = (at: number, durationMs: number) =>
    ev(at, { type: 'sync.result', workType: 'SyncPod', actions: [], durationMs, ...POD_REF });
  return [
    ev(0, { type: 'config.update', op: 'ADD', source: 'api', ...POD_REF }), // 1
    ev(0.1, { type: 'worker.update', updateType: 'SyncPodCreate', coalesced: false, ...POD_REF }), // 2
    ev(0.1, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodCreate', ...POD_REF }), // 3
    sync(0.8, 700), // 4
    ev(2, {
      type: 'pleg.event',
      event: 'ContainerStarted',
      containerID: 'c1',
      containerName: 'app',
      ...POD_REF,
    }), // 5
    ev(2, { type: 'pleg.event', event: 'ContainerStarted', containerID: 'sandbox1', ...POD_REF }), // 6
    ev(2.01, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }), // 7
    ev(2.01, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }), // 8
    ev(2.01, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...POD_REF }), // 9
    sync(2.02, 10), // 10
    ev(3, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...POD_REF }), // 11
    sync(3.01, 10), // 12
    ev(4, { type: 'pleg.event', event: 'ContainerRemoved', containerID: 'c0', ...POD_REF }), // 13
    ev(70, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }), // 14
    ev(70, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...POD_REF }), // 15
  ];
}

describe('wakeChains', () => {
  it('links each cause to its worker update and the run it became, a pending update to the later run', () => {
    const chains = wakeChains(trace());
    const brief = chains.map((c) => [
      c.cause.kind,
      c.cause.seq,
      c.update.seq,
      c.run?.startSeq,
      c.run?.resultSeq,
    ]);
    expect(brief).toEqual([
      ['config', 1, 2, 3, 4],
      ['pleg', 5, 7, 9, 10],
      // taken when run 9–10 ended, started after the relist
      ['pleg', 6, 8, 11, 12],
      // no cause within the window before it (ContainerRemoved wakes nothing): a resync, still running
      ['resync', 14, 14, 15, null],
    ]);
    expect(chains[1]?.cause.label).toBe('PLEG ContainerStarted app');
    expect(chains[3]?.run?.start).toBe(T0 + 70_000);
  });

  it('finds the chain from any of its steps: the cause, the update, the start or the result', () => {
    const chains = wakeChains(trace());
    for (const seq of [6, 8, 11, 12]) expect(chainsOf(chains, seq).map((c) => c.cause.seq)).toEqual([6]);
    expect(chainsOf(chains, 13)).toEqual([]);
  });
});
