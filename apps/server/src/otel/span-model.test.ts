import type { TraceEvent, TracePayload } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { SpanModel, type SpanRecord, traceIdOf } from './span-model.ts';

const UID = '3f2a1c9e-8b7d-4e6f-a5c4-1b2d3e4f5a6b';
const ref = { podUID: UID, pod: 'default/crashloop' };

function harness(opts: { observed?: boolean; maxEvents?: number } = {}) {
  const spans: SpanRecord[] = [];
  let n = 0;
  let seq = 0;
  const model = new SpanModel({
    emit: (s) => spans.push(s),
    spanId: () => (++n).toString(16).padStart(16, '0'),
    ...opts,
  });
  const push = (time: number, p: TracePayload) => model.push({ ...p, seq: ++seq, time } as TraceEvent);
  return { model, spans, push, named: (name: string) => spans.filter((s) => s.name === name) };
}

describe('SpanModel', () => {
  it('takes the trace id from the pod UUID and hashes anything else', () => {
    expect(traceIdOf(UID)).toBe('3f2a1c9e8b7d4e6fa5c41b2d3e4f5a6b');
    expect(traceIdOf('not-a-uuid')).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf('00000000-0000-0000-0000-000000000000')).not.toBe('0'.repeat(32));
  });

  it('nests CRI calls in sync runs in worker-state spans, with back-off as an event and errors as status', () => {
    const { spans, push, named } = harness();
    push(1000, { type: 'config.update', op: 'ADD', source: 'api', ...ref });
    push(1001, { type: 'worker.state', from: null, to: 'SyncPod', ...ref });
    push(1002, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodCreate', ...ref });
    push(1050, { type: 'runtime.call', method: 'StartContainer', container: 'app', durationMs: 20, ...ref });
    push(1060, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 'app' }],
      durationMs: 58,
      ...ref,
    });
    push(2000, {
      type: 'pleg.event',
      event: 'ContainerDied',
      containerID: 'c1',
      containerName: 'app',
      ...ref,
    });
    push(2001, { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodSync', ...ref });
    const until = 12_001;
    push(2002, {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      delayS: 10,
      until,
      ...ref,
    });
    push(2003, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [
        { action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff', message: 'back-off 10s' },
      ],
      durationMs: 2,
      ...ref,
    });
    push(3000, { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...ref });
    push(3001, {
      type: 'runtime.call',
      method: 'StopContainer',
      container: 'app',
      durationMs: 1,
      error: 'boom',
      ...ref,
    });
    push(3100, { type: 'worker.state', from: 'TerminatingPod', to: 'TerminatedPod', ...ref });
    push(3200, { type: 'worker.state', from: 'TerminatedPod', to: 'Finished', ...ref });
    push(3250, { type: 'worker.state', from: 'Finished', to: 'Forgotten', ...ref });
    push(3300, { type: 'runtime.call', method: 'RemoveContainer', durationMs: 1, ...ref });

    const [worker] = named('SyncPod').filter((s) => s.parentSpanId === undefined);
    expect(worker).toMatchObject({ startMs: 1001, endMs: 3000, traceId: traceIdOf(UID) });
    expect(worker?.attributes).toMatchObject({
      'k8s.pod.uid': UID,
      'k8s.pod.name': 'crashloop',
      'k8s.namespace.name': 'default',
    });
    // the config op came before any span: it lands on the first one
    expect(worker?.events.map((e) => e.name)).toEqual(['SyncLoop ADD', 'PLEG ContainerDied']);
    const runs = named('SyncPod').filter((s) => s.parentSpanId === worker?.spanId);
    expect(runs.map((r) => [r.startMs, r.endMs, r.error])).toEqual([
      [1002, 1060, undefined],
      [2001, 2003, '[failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 10s"]'],
    ]);
    expect(runs[1]?.events.map((e) => e.name)).toEqual(['BackOff', 'SyncResult']);
    expect(runs[1]?.events[0]?.attributes).toMatchObject({
      'backoff.delay_s': 10,
      'k8s.container.name': 'app',
    });
    const [start] = named('CRI StartContainer');
    expect(start).toMatchObject({ parentSpanId: runs[0]?.spanId, startMs: 1030, endMs: 1050 });
    expect(start?.attributes).toMatchObject({ 'rpc.method': 'StartContainer', 'k8s.container.name': 'app' });
    const [terminating] = named('TerminatingPod');
    const [stop] = named('CRI StopContainer');
    expect(stop).toMatchObject({ parentSpanId: terminating?.spanId, error: 'boom' });
    const [terminated] = named('TerminatedPod');
    // a finished pod's cleanup still belongs to it: under its last worker span, not a root of its own
    expect(named('CRI RemoveContainer')[0]?.parentSpanId).toBe(terminated?.spanId);
    expect(spans.every((s) => s.traceId === traceIdOf(UID))).toBe(true);
  });

  it('keeps at most maxEvents events a span and counts the rest', () => {
    const { model, push, spans } = harness({ maxEvents: 3 });
    push(0, { type: 'worker.state', from: null, to: 'SyncPod', ...ref });
    for (let i = 0; i < 10; i++)
      push(i + 1, { type: 'pleg.event', event: 'ContainerDied', containerID: `c${i}`, ...ref });
    model.close(100);
    expect(spans[0]).toMatchObject({ droppedEvents: 7, endMs: 100 });
    expect(spans[0]?.events).toHaveLength(3);
    expect(spans[0]?.attributes['syncscope.span.unfinished']).toBe(true);
  });

  it('in observe mode puts a pod into Observed windows that tick ends', () => {
    const { model, push, named } = harness({ observed: true });
    push(1000, { type: 'pleg.event', event: 'ContainerStarted', containerID: 'c1', ...ref });
    push(2000, {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      delayS: 10,
      until: 12_000,
      ...ref,
    });
    model.tick(20_000);
    expect(named('Observed')).toHaveLength(0);
    model.tick(31_000);
    const [w] = named('Observed');
    expect(w).toMatchObject({ startMs: 1000, endMs: 31_000 });
    expect(w?.events.map((e) => e.name)).toEqual(['PLEG ContainerStarted', 'BackOff']);
    expect(model.openPods).toBe(0);
  });

  it('forgets a pod whose events never got a span', () => {
    const { model, push, spans } = harness();
    push(1000, { type: 'config.update', op: 'REMOVE', source: 'api', ...ref });
    expect(model.openPods).toBe(1);
    model.tick(40_000);
    expect(model.openPods).toBe(0);
    expect(spans).toHaveLength(0);
  });
});
