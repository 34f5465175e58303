import { describe, expect, it } from 'vitest';
import { containerStatus, POD_REF, T0, traceBuilder } from './fixtures.ts';
import { extendToNow, layoutPodTimeline } from './timeline-layout.ts';

const s = (sec: number) => T0 + sec * 1000;

/** A pod whose container runs 3 s, exits 1, backs off 10 s and runs again. */
function crashOnce() {
  const ev = traceBuilder();
  return [
    ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
    ev(0.1, { type: 'runtime.call', method: 'RunPodSandbox', durationMs: 50, ...POD_REF }),
    ev(0.2, {
      type: 'runtime.call',
      method: 'CreateContainer',
      container: 'app',
      attempt: 0,
      durationMs: 20,
      ...POD_REF,
    }),
    ev(0.3, { type: 'runtime.call', method: 'StartContainer', container: 'app', durationMs: 20, ...POD_REF }),
    ev(0.4, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 'app' }],
      durationMs: 400,
      ...POD_REF,
    }),
    ev(1, {
      type: 'pleg.event',
      event: 'ContainerStarted',
      containerID: 'c1',
      containerName: 'app',
      ...POD_REF,
    }),
    ev(3.3, {
      type: 'pleg.event',
      event: 'ContainerDied',
      containerID: 'c1',
      containerName: 'app',
      ...POD_REF,
    }),
    ev(3.4, {
      type: 'status.update',
      status: {
        phase: 'Running',
        containerStatuses: [
          containerStatus('app', {
            containerID: 'containerd://c1',
            state: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-10T12:00:03Z' } },
          }),
        ],
      },
      ...POD_REF,
    }),
    ev(3.5, {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      delayS: 10,
      until: s(13.5),
      ...POD_REF,
    }),
    ev(3.5, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [
        { action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff', message: 'back-off 10s' },
      ],
      durationMs: 5,
      ...POD_REF,
    }),
    ev(13.6, {
      type: 'runtime.call',
      method: 'CreateContainer',
      container: 'app',
      attempt: 1,
      durationMs: 20,
      ...POD_REF,
    }),
    ev(13.7, {
      type: 'runtime.call',
      method: 'StartContainer',
      container: 'app',
      durationMs: 20,
      ...POD_REF,
    }),
    ev(14, {
      type: 'pleg.event',
      event: 'ContainerStarted',
      containerID: 'c2',
      containerName: 'app',
      ...POD_REF,
    }),
  ];
}

describe('layoutPodTimeline', () => {
  it('gives each container instance its own lane with created, running and exited spans', () => {
    const layout = layoutPodTimeline(crashOnce(), s(20));
    expect(layout.lanes.map((l) => [l.name, l.attempt, l.containerID, l.exitCode])).toEqual([
      ['app', 0, 'c1', 1],
      ['app', 1, 'c2', null],
    ]);
    const [first, second] = layout.lanes;
    expect(first?.reason).toBe('Error');
    expect(first?.segments).toEqual([
      { kind: 'created', start: s(0.2), end: s(0.3) },
      { kind: 'running', start: s(0.3), end: s(3.3) },
      { kind: 'exited', start: s(3.3), end: s(13.6) },
    ]);
    // The running instance reaches the right edge (now).
    expect(second?.segments.at(-1)).toEqual({ kind: 'running', start: s(13.7), end: s(20), open: true });
    expect(layout.end).toBe(s(20));
  });

  it('extendToNow moves only the live edge: the same layout as laying out at that time', () => {
    const laidOut = layoutPodTimeline(crashOnce(), 0);
    const later = extendToNow(laidOut, s(20));
    expect(later).toEqual(layoutPodTimeline(crashOnce(), s(20)));
    // the finished instance and the point marks are untouched, so nothing keyed on them is redrawn
    expect(later.lanes[0]).toBe(laidOut.lanes[0]);
    expect(later.pleg).toBe(laidOut.pleg);
    expect(extendToNow(laidOut, laidOut.end - 1)).toBe(laidOut);
  });

  it('marks PLEG events, syncs (failed when an action failed) and backoff windows', () => {
    const layout = layoutPodTimeline(crashOnce(), s(20));
    expect(layout.pleg.map((p) => [p.event, p.time])).toEqual([
      ['ContainerStarted', s(1)],
      ['ContainerDied', s(3.3)],
      ['ContainerStarted', s(14)],
    ]);
    expect(layout.syncs.map((m) => [m.start, m.end, m.failed])).toEqual([
      [s(0), s(0.4), false],
      [s(3.5) - 5, s(3.5), true],
    ]);
    expect(layout.backoffs).toEqual([
      { seq: 9, kind: 'container', container: 'app', delayS: 10, start: s(3.5), end: s(13.5) },
    ]);
  });

  it('bands the worker states; Forgotten ends the band', () => {
    const ev = traceBuilder();
    const layout = layoutPodTimeline(
      [
        ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
        ev(5, { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...POD_REF }),
        ev(7, { type: 'worker.state', from: 'TerminatingPod', to: 'TerminatedPod', ...POD_REF }),
        ev(8, { type: 'worker.state', from: 'TerminatedPod', to: 'Forgotten', ...POD_REF }),
      ],
      s(10),
    );
    expect(layout.workerBands.map((b) => [b.state, b.start, b.end, b.open])).toEqual([
      ['SyncPod', s(0), s(5), false],
      ['TerminatingPod', s(5), s(7), false],
      ['TerminatedPod', s(7), s(8), false],
    ]);
  });

  it('builds instances from status alone when the trace starts after they ran', () => {
    const ev = traceBuilder(100);
    const layout = layoutPodTimeline(
      [
        ev(10, {
          type: 'status.update',
          status: {
            phase: 'Running',
            initContainerStatuses: [
              containerStatus('setup', {
                containerID: 'containerd://i1',
                state: {
                  terminated: {
                    exitCode: 0,
                    reason: 'Completed',
                    startedAt: '2025-01-10T12:00:01Z',
                    finishedAt: '2025-01-10T12:00:02Z',
                  },
                },
              }),
            ],
            containerStatuses: [
              containerStatus('app', {
                containerID: 'containerd://a2',
                state: { running: { startedAt: '2025-01-10T12:00:05Z' } },
                lastState: {
                  terminated: {
                    exitCode: 137,
                    reason: 'OOMKilled',
                    containerID: 'containerd://a1',
                    startedAt: '2025-01-10T12:00:03Z',
                    finishedAt: '2025-01-10T12:00:04Z',
                  },
                },
              }),
            ],
          },
          ...POD_REF,
        }),
      ],
      s(10),
    );
    expect(
      layout.lanes.map((l) => [l.name, l.init, l.containerID, l.startedAt, l.finishedAt, l.reason]),
    ).toEqual([
      ['setup', true, 'i1', s(1), s(2), 'Completed'],
      ['app', false, 'a1', s(3), s(4), 'OOMKilled'],
      ['app', false, 'a2', s(5), null, null],
    ]);
  });

  it('a failed CreateContainer is an instance with its error', () => {
    const ev = traceBuilder();
    const layout = layoutPodTimeline(
      [
        ev(1, {
          type: 'runtime.call',
          method: 'CreateContainer',
          container: 'app',
          attempt: 0,
          durationMs: 3,
          code: 2,
          error: 'failed to create',
          ...POD_REF,
        }),
      ],
      s(2),
    );
    expect(layout.lanes).toHaveLength(1);
    expect(layout.lanes[0]).toMatchObject({ error: 'failed to create', finishedAt: s(1), startedAt: null });
  });
});

describe('server restarts on a pod timeline', () => {
  it('marks a server.start inside the pod history and ignores one from before the pod existed', () => {
    const ev = traceBuilder();
    const server = {
      type: 'server.start',
      version: '0.1.0',
      runtime: 'simulated',
      endpoint: 'unix:///x',
    } as const;
    const events = [
      ev(-600, server),
      ev(0, { type: 'worker.state', ...POD_REF, from: null, to: 'SyncPod' }),
      ev(30, server),
      ev(31, { type: 'worker.update', ...POD_REF, updateType: 'SyncPodSync', coalesced: false }),
    ];
    const layout = layoutPodTimeline(events, T0 + 40_000);
    expect(layout.restarts.map((r) => r.time)).toEqual([T0 + 30_000]);
    expect(layout.start).toBe(T0);
  });
});
