import { describe, expect, it } from 'vitest';
import type { Pod } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { Recorder } from './recorder.ts';

function pod(name: string, uid: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  };
}

describe('Recorder', () => {
  it('aggregates identical events into one with count and first/last timestamps', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const trace = new TraceRecorder(clock);
    const r = new Recorder(clock, trace, 'node-1');
    const p = pod('web', 'u1');
    const msg = 'Back-off restarting failed container app in pod web_default(u1)';
    r.event(p, 'Warning', 'BackOff', msg, 'spec.containers{app}');
    await clock.step(40_000);
    r.event(p, 'Warning', 'BackOff', msg, 'spec.containers{app}');
    r.event(
      p,
      'Normal',
      'Pulled',
      'Container image "busybox" already present on machine',
      'spec.containers{app}',
    );

    const evs = r.forPod('u1');
    expect(evs).toHaveLength(2);
    const backoff = evs.find((e) => e.reason === 'BackOff');
    expect(backoff).toMatchObject({
      type: 'Warning',
      count: 2,
      firstTimestamp: '2026-01-01T12:00:00Z',
      lastTimestamp: '2026-01-01T12:00:40Z',
      involvedObject: {
        kind: 'Pod',
        name: 'web',
        namespace: 'default',
        uid: 'u1',
        fieldPath: 'spec.containers{app}',
      },
      source: { component: 'kubelet', host: 'node-1' },
    });
    const traced = trace.since(0).filter((e) => e.type === 'k8s.event');
    expect(traced.map((e) => (e.type === 'k8s.event' ? e.count : -1))).toEqual([1, 2, 1]);
    expect(traced[0]).toMatchObject({
      podUID: 'u1',
      pod: 'default/web',
      reason: 'BackOff',
      eventType: 'Warning',
    });
  });

  it('keeps different messages and pods apart', () => {
    const clock = new FakeClock();
    const r = new Recorder(clock, new TraceRecorder(clock), 'n');
    r.event(pod('a', 'u1'), 'Normal', 'Created', 'Created container: app');
    r.event(pod('b', 'u2'), 'Normal', 'Created', 'Created container: app');
    r.event(pod('a', 'u1'), 'Normal', 'Started', 'Started container app');
    expect(r.list()).toHaveLength(3);
    expect(r.forPod('u1').map((e) => e.reason)).toEqual(['Created', 'Started']);
  });

  it('drops the least recently seen aggregate beyond capacity', () => {
    const clock = new FakeClock();
    const r = new Recorder(clock, new TraceRecorder(clock), 'n', 2);
    const p = pod('a', 'u1');
    r.event(p, 'Normal', 'X', 'one');
    r.event(p, 'Normal', 'X', 'two');
    r.event(p, 'Normal', 'X', 'one'); // refreshes "one"
    r.event(p, 'Normal', 'X', 'three');
    expect(r.list().map((e) => e.message)).toEqual(['one', 'three']);
  });
});
