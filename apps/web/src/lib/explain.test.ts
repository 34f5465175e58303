import { describe, expect, it } from 'vitest';
import { describeEvent } from './explain.ts';
import { POD_REF, traceBuilder } from './fixtures.ts';

describe('describeEvent: kills show their grace', () => {
  const ev = traceBuilder();
  const stop = (fields: { gracePeriodS?: number; override?: boolean }) =>
    describeEvent(
      ev(1, {
        type: 'runtime.call',
        method: 'StopContainer',
        container: 'app',
        durationMs: 12,
        ...POD_REF,
        ...fields,
      }),
    );

  it('a StopContainer names its grace, and an override when the caller passed one', () => {
    expect(stop({ gracePeriodS: 30 })).toBe('CRI StopContainer app 12 ms, grace 30s');
    expect(stop({ gracePeriodS: 5, override: true })).toBe(
      'CRI StopContainer app 12 ms, grace 5s (override)',
    );
    expect(stop({ gracePeriodS: 90 })).toBe('CRI StopContainer app 12 ms, grace 1m30s');
    // a call without one (an older trace) says nothing of it
    expect(stop({})).toBe('CRI StopContainer app 12 ms');
  });

  it("the worker's SyncPodKill names the grace in effect", () => {
    const kill = (fields: { gracePeriodS?: number; override?: boolean }) =>
      describeEvent(
        ev(2, { type: 'worker.update', updateType: 'SyncPodKill', coalesced: false, ...POD_REF, ...fields }),
      );
    expect(kill({ gracePeriodS: 5, override: true })).toBe('worker update SyncPodKill, grace 5s (override)');
    expect(kill({ gracePeriodS: 30 })).toBe('worker update SyncPodKill, grace 30s');
  });
});

describe('describeEvent: ContainerDied carries the exit code', () => {
  it('shows the exit code the PLEG read', () => {
    const ev = traceBuilder();
    const died = ev(1, {
      type: 'pleg.event',
      event: 'ContainerDied',
      containerID: 'containerd://0123456789abcdef',
      containerName: 'app',
      exitCode: 137,
      ...POD_REF,
    });
    expect(describeEvent(died)).toBe('PLEG ContainerDied app 0123456789ab (exit 137)');
  });
});
