import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { goDuration, utcClock } from './explain.ts';
import { containerStatus, POD_REF, T0, traceBuilder } from './fixtures.ts';
import { indexOfSeq, stepState } from './step.ts';

/** Create → run → exit 1 → refused start in a 20s back-off → delete → terminated. */
function crashThenDelete(): TraceEvent[] {
  const ev = traceBuilder(10);
  const backoffMsg = 'back-off 20s restarting failed container=app pod=web_default(uid-web)';
  return [
    ev(0, { type: 'worker.update', updateType: 'SyncPodCreate', coalesced: false, ...POD_REF }),
    ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
    ev(0, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodCreate', ...POD_REF }),
    ev(0.1, {
      type: 'status.update',
      status: {
        phase: 'Pending',
        containerStatuses: [containerStatus('app', { state: { waiting: { reason: 'ContainerCreating' } } })],
      },
      ...POD_REF,
    }),
    ev(1, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 'app' }],
      durationMs: 1000,
      plan: {
        killPod: true,
        createSandbox: true,
        attempt: 0,
        initContainersToStart: [],
        containersToStart: ['app'],
        containersToKill: [],
        reasons: ['no sandbox yet → create sandbox attempt 0; start app'],
      },
      ...POD_REF,
    }),
    ev(20, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: false, ...POD_REF }),
    ev(20, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...POD_REF }),
    ev(20.1, {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      delayS: 20,
      until: T0 + 41_000,
      exitCode: 1,
      restartCount: 2,
      ...POD_REF,
    }),
    ev(20.1, { type: 'worker.update', updateType: 'SyncPodSync', coalesced: true, ...POD_REF }),
    ev(20.2, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff', message: backoffMsg }],
      durationMs: 200,
      error: `failed to "StartContainer" for "app" with CrashLoopBackOff: "${backoffMsg}"`,
      requeueAfterMs: 12_000,
      plan: {
        killPod: false,
        createSandbox: false,
        attempt: 0,
        initContainersToStart: [],
        containersToStart: ['app'],
        containersToKill: [],
        reasons: ['app exited 1; restartPolicy Always → restart'],
      },
      ...POD_REF,
    }),
    ev(20.3, {
      type: 'status.update',
      status: {
        phase: 'Running',
        containerStatuses: [
          containerStatus('app', {
            restartCount: 2,
            state: { waiting: { reason: 'CrashLoopBackOff', message: backoffMsg } },
          }),
        ],
      },
      ...POD_REF,
    }),
    ev(30, { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...POD_REF }),
    ev(31, { type: 'worker.state', from: 'TerminatingPod', to: 'TerminatedPod', ...POD_REF }),
    ev(32, { type: 'worker.state', from: 'TerminatedPod', to: 'Finished', ...POD_REF }),
  ];
}

describe('stepState', () => {
  const events = crashThenDelete();

  it('shows nothing reported before the first status, and the pending create before its sync', () => {
    const s = stepState(events, 1, utcClock);
    expect(s?.worker).toBe('SyncPod');
    expect(s?.status).toBeNull();
    expect(s?.pending).toEqual({ updateType: 'SyncPodCreate', coalesced: false, time: T0 });
    expect(stepState(events, 2, utcClock)?.pending).toBeNull();
    expect(stepState(events, 2, utcClock)?.syncing?.updateType).toBe('SyncPodCreate');
  });

  it('explains the first sync from the plan', () => {
    const s = stepState(events, 4, utcClock);
    expect(s?.status?.phase).toBe('Pending');
    expect(s?.syncing).toBeNull();
    expect(s?.decision?.summary).toBe('no sandbox yet → create sandbox attempt 0; start app');
    expect(s?.decision?.lines).toContain('✓ StartContainer app');
  });

  it('explains a refused start with the back-off window of that sync, in words', () => {
    const s = stepState(events, 9, utcClock);
    expect(s?.decision?.summary).toBe(
      'app exited 1; restartPolicy Always → restart; in back-off 20s until 12:00:41 → CrashLoopBackOff',
    );
    expect(s?.decision?.lines.at(-1)).toBe('next sync in 12s (error back-off)');
    // an update that arrived during the sync waits for the next one
    expect(s?.pending).toMatchObject({ updateType: 'SyncPodSync', coalesced: true });
    expect(s?.backoffs.map((b) => b.until)).toEqual([T0 + 41_000]);
    // the status at the step is the one reported before it, not the later CrashLoopBackOff one
    expect(s?.status?.containerStatuses?.[0]?.state.waiting?.reason).toBe('ContainerCreating');
    expect(stepState(events, 10, utcClock)?.status?.containerStatuses?.[0]?.restartCount).toBe(2);
  });

  it('walks the worker states in order, and no decision on steps that are not sync results', () => {
    const states = events.map((_, i) => stepState(events, i)?.worker);
    expect([...new Set(states)]).toEqual([null, 'SyncPod', 'TerminatingPod', 'TerminatedPod', 'Finished']);
    expect(stepState(events, 11)?.decision).toBeNull();
    expect(stepState(events, 6)?.backoffs).toEqual([]);
  });

  it('clamps the index and returns null for an empty trace', () => {
    expect(stepState(events, 99)?.index).toBe(events.length - 1);
    expect(stepState(events, -4)?.index).toBe(0);
    expect(stepState([], 0)).toBeNull();
  });

  it('finds the step of a seq, or the last one before it', () => {
    expect(indexOfSeq(events, 10)).toBe(0);
    expect(indexOfSeq(events, 14)).toBe(4);
    expect(indexOfSeq(events, 1_000)).toBe(events.length - 1);
    expect(indexOfSeq(events, 3)).toBe(0);
    expect(indexOfSeq([], 3)).toBe(-1);
  });
});

describe('goDuration', () => {
  it('prints delays as Go does', () => {
    expect([10, 20, 40, 80, 160, 300, 3600, 1.5, 0.25, 0].map(goDuration)).toEqual([
      '10s',
      '20s',
      '40s',
      '1m20s',
      '2m40s',
      '5m0s',
      '1h0m0s',
      '1.5s',
      '250ms',
      '0s',
    ]);
  });
});
