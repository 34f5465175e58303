import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { nextSyncDue, nextSyncWords } from './backoff.ts';
import { POD_REF, T0, traceBuilder } from './fixtures.ts';
import { faultMarks, withFoldedLanes } from './timeline-fold.ts';
import { extendToNow, layoutPodTimeline } from './timeline-layout.ts';

const s = (sec: number) => T0 + sec * 1000;

/** `n` runs of container app, each 2 s, exit 1, with the back-off window recorded by two syncs each. */
function crashLoop(n: number): TraceEvent[] {
  const ev = traceBuilder();
  const out: TraceEvent[] = [ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF })];
  for (let i = 0; i < n; i++) {
    const t = i * 10;
    const id = `c${i}`;
    out.push(
      ev(t, {
        type: 'runtime.call',
        method: 'CreateContainer',
        container: 'app',
        attempt: i,
        durationMs: 5,
        ...POD_REF,
      }),
      ev(t + 0.1, {
        type: 'runtime.call',
        method: 'StartContainer',
        container: 'app',
        durationMs: 5,
        ...POD_REF,
      }),
      ev(t + 0.5, {
        type: 'pleg.event',
        event: 'ContainerStarted',
        containerID: id,
        containerName: 'app',
        ...POD_REF,
      }),
      ev(t + 2, {
        type: 'pleg.event',
        event: 'ContainerDied',
        containerID: id,
        containerName: 'app',
        exitCode: 1,
        ...POD_REF,
      }),
    );
    for (const at of [t + 2.1, t + 5]) {
      out.push(
        ev(at, {
          type: 'backoff',
          kind: 'container',
          container: 'app',
          key: 'k',
          delayS: 5,
          until: s(t + 7),
          ...POD_REF,
        }),
      );
    }
  }
  return out;
}

describe('pod timeline: lanes, back-off boxes, the end of a finished pod', () => {
  it('keeps a lane per instance up to three, then folds them into one lane with a mark per run', () => {
    expect(withFoldedLanes(layoutPodTimeline(crashLoop(3), s(40))).lanes).toHaveLength(3);
    const folded = withFoldedLanes(layoutPodTimeline(crashLoop(5), s(60))).lanes;
    expect(folded).toHaveLength(1);
    expect(folded[0]?.runs?.map((r) => [r.attempt, r.start, r.exitCode])).toEqual([
      [0, s(0), 1],
      [1, s(10), 1],
      [2, s(20), 1],
      [3, s(30), 1],
      [4, s(40), 1],
    ]);
    expect(folded[0]?.segments.filter((g) => g.kind === 'running')).toHaveLength(5);
  });

  it('draws one back-off box per window, however many syncs recorded it', () => {
    const layout = layoutPodTimeline(crashLoop(2), s(30));
    expect(layout.backoffs.map((b) => [b.start, b.end])).toEqual([
      [s(2.1), s(7)],
      [s(12.1), s(17)],
    ]);
  });

  it('ends a finished pod’s timeline where its worker finished, however late it is now', () => {
    const ev = traceBuilder();
    const done = layoutPodTimeline(
      [
        ev(0, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
        ev(5, { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...POD_REF }),
        ev(6, { type: 'worker.state', from: 'TerminatingPod', to: 'TerminatedPod', ...POD_REF }),
        ev(7, { type: 'worker.state', from: 'TerminatedPod', to: 'Finished', ...POD_REF }),
      ],
      0,
    );
    expect(done.finished).toBe(true);
    expect(extendToNow(done, s(600)).end).toBe(s(7));
    // a live pod follows now
    expect(extendToNow(layoutPodTimeline(crashLoop(1), 0), s(600)).end).toBe(s(600));
  });
});

describe('fault marks', () => {
  it('labels each fault, makes an outage a span ended early by a clear, and keeps those within the pod', () => {
    const ev = traceBuilder(100);
    const faults = [
      ev(-30, { type: 'sim.fault', fault: 'latency', detail: 'slow' }),
      ev(10, {
        type: 'sim.fault',
        fault: 'outage',
        detail: 'runtime unavailable for 30s',
        outageMs: 30_000,
      }),
      ev(15, { type: 'sim.fault', fault: 'failNext', detail: 'next 2 StartContainer calls fail' }),
      ev(20, { type: 'sim.fault', fault: 'clear', detail: 'call faults cleared', cleared: 'all' }),
      ev(50, { type: 'sim.fault', fault: 'outage', detail: 'runtime unavailable for 5s', outageMs: 5_000 }),
    ];
    expect(faultMarks(faults, s(0), s(100)).map((f) => [f.label, f.time, f.end])).toEqual([
      ['runtime outage', s(10), s(20)],
      ['calls fail', s(15), undefined],
      ['faults cleared', s(20), undefined],
      ['runtime outage', s(50), s(55)],
    ]);
  });
});

describe('the next sync after a back-off window', () => {
  it('is due at the latest result plus its requeue, in words with an upper bound', () => {
    const ev = traceBuilder();
    const events = [
      ev(0, {
        type: 'sync.result',
        workType: 'SyncPod',
        actions: [],
        durationMs: 1,
        requeueAfterMs: 60_000,
        ...POD_REF,
      }),
      ev(10, {
        type: 'sync.result',
        workType: 'SyncPod',
        actions: [],
        durationMs: 1,
        requeueAfterMs: 11_500,
        ...POD_REF,
      }),
    ];
    const due = nextSyncDue(events);
    expect(due).toBe(s(21.5));
    expect(nextSyncWords(due, s(14))).toBe('waiting for the next sync, due in ≤ 8 s');
    expect(nextSyncWords(due, s(22))).toBe('waiting for the next sync, due now');
  });
});
