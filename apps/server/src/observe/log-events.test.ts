import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { PodRef, TraceOf } from '@syncscope/core/events/trace';
import { defaultKubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import { describe, expect, it } from 'vitest';
import { InferredBackoff } from './backoff-infer.ts';
import { joinLogEvent, type LogJoin } from './log-events.ts';

const WEB: PodRef = { podUID: 'uid-web', pod: 'shop/web-0' };

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const backoff = new InferredBackoff(clock, trace, defaultKubeletConfiguration);
  const join: LogJoin = {
    trace,
    backoff,
    clock,
    podRef: (uid, pod) => (uid === WEB.podUID || pod === WEB.pod ? WEB : undefined),
  };
  const backoffs = () => trace.since(0).filter((e): e is TraceOf<'backoff'> => e.type === 'backoff');
  return { clock, trace, backoff, join, backoffs };
}

describe('joinLogEvent', () => {
  it('records a Kubernetes Event named by pod name under the observed pod uid', () => {
    const { join, trace } = setup();
    const r = joinLogEvent(join, {
      type: 'k8s.event',
      podUID: '',
      pod: 'shop/web-0',
      eventType: 'Warning',
      reason: 'BackOff',
      message: 'Back-off restarting failed container app',
      count: 1,
      time: 123,
      origin: { line: 7 },
    });
    expect(r).toBe('recorded');
    const ev = trace.since(0).at(-1);
    expect(ev).toMatchObject({ type: 'k8s.event', podUID: 'uid-web', pod: 'shop/web-0', reason: 'BackOff' });
    expect(ev).not.toHaveProperty('origin');
  });

  it('records kills, probes, sync results and config ops; leaves out the PLEG and unseen pods', () => {
    const { join, trace } = setup();
    const ref = { podUID: 'uid-web', pod: 'shop/web-0' };
    expect(joinLogEvent(join, { type: 'runtime.call', method: 'StopContainer', durationMs: 0, ...ref })).toBe(
      'recorded',
    );
    expect(joinLogEvent(join, { type: 'runtime.call', method: 'ListContainers', durationMs: 0 })).toBe(
      'ignored',
    );
    expect(
      joinLogEvent(join, { type: 'worker.update', updateType: 'SyncPodKill', coalesced: false, ...ref }),
    ).toBe('recorded');
    expect(
      joinLogEvent(join, {
        type: 'probe.result',
        container: 'app',
        probe: 'Liveness',
        result: 'Failure',
        ...ref,
      }),
    ).toBe('recorded');
    expect(
      joinLogEvent(join, {
        type: 'sync.result',
        workType: 'SyncPod',
        actions: [],
        durationMs: 0,
        error: 'failed to SyncPod',
        ...ref,
      }),
    ).toBe('recorded');
    expect(joinLogEvent(join, { type: 'config.update', op: 'UPDATE', source: 'api', ...ref })).toBe(
      'recorded',
    );
    expect(
      joinLogEvent(join, { type: 'pleg.event', event: 'ContainerDied', containerID: 'c1', ...ref }),
    ).toBe('ignored');
    expect(
      joinLogEvent(join, { type: 'config.update', op: 'ADD', source: 'api', podUID: 'other', pod: 'a/b' }),
    ).toBe('unmatched');
    expect(trace.since(0).map((e) => e.type)).toEqual([
      'runtime.call',
      'worker.update',
      'probe.result',
      'sync.result',
      'config.update',
    ]);
  });

  it('turns an inferred back-off into a confirmed one, with the delay the log states', async () => {
    const { clock, join, backoff, backoffs } = setup();
    // first exit: restarted at once (no window); the restart steps the window to 10 s
    const died1 = clock.now();
    backoff.exited(WEB, 'app', died1, 1, 0);
    await clock.step(500);
    backoff.restarted(WEB, 'app', died1);
    await clock.step(2_000);
    const died2 = clock.now();
    backoff.exited(WEB, 'app', died2, 1, 1);
    expect(backoffs()).toMatchObject([{ delayS: 10, until: died2 + 10_000, inferred: true, exitCode: 1 }]);

    await clock.step(300);
    const line = {
      type: 'backoff' as const,
      kind: 'container' as const,
      container: 'app',
      key: 'shop/web-0/app',
      delayS: 10,
      until: 0,
      podUID: 'uid-web',
      pod: 'shop/web-0',
      time: clock.now(),
    };
    expect(joinLogEvent(join, line)).toBe('confirmed');
    // the kubelet says it again at its next sync: one confirmation
    expect(joinLogEvent(join, { ...line, time: clock.now() + 100 })).toBe('repeated');
    const all = backoffs();
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ delayS: 10, until: died2 + 10_000, confirmed: true, restartCount: 1 });
    expect(all[1]).not.toHaveProperty('inferred');

    // the log's delay wins over ours and is the window from then on
    expect(joinLogEvent(join, { ...line, delayS: 40 })).toBe('confirmed');
    // past our window for that exit: taken once two relists showed no later exit
    for (const at of [clock.now(), clock.now()]) backoff.relisted(at);
    expect(backoffs().at(-1)).toMatchObject({ delayS: 40, until: died2 + 40_000, confirmed: true });
    expect(backoff.windowMs('uid-web', 'app')).toBe(40_000);
  });
});
