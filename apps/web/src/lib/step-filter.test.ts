import type { TraceEvent } from '@syncscope/core/trace';
import { describe, expect, it } from 'vitest';
import { POD_REF, traceBuilder } from './fixtures.ts';
import { isErrorStep, kindFilter, podSteps, seekStep, stepKind } from './step-filter.ts';

function trace(): TraceEvent[] {
  const ev = traceBuilder(1);
  return [
    ev(-100, { type: 'server.start', version: '0.1.0', runtime: 'simulated', endpoint: 'unix:///x' }), // 1
    ev(-50, { type: 'sim.fault', fault: 'latency', detail: 'slow' }), // 2
    ev(0, { type: 'worker.update', updateType: 'SyncPodCreate', coalesced: false, ...POD_REF }), // 3
    ev(0.1, { type: 'runtime.call', method: 'RunPodSandbox', durationMs: 5, ...POD_REF }), // 4
    ev(0.2, { type: 'runtime.call', method: 'StartContainer', durationMs: 5, error: 'boom', ...POD_REF }), // 5
    ev(0.3, {
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 'app', error: 'RunContainerError' }],
      durationMs: 300,
      ...POD_REF,
    }), // 6
    ev(1, { type: 'k8s.event', eventType: 'Normal', reason: 'Pulled', message: 'ok', count: 1, ...POD_REF }), // 7
    ev(2, { type: 'probe.result', container: 'app', probe: 'Liveness', result: 'Failure', ...POD_REF }), // 8
  ];
}

describe('step filter', () => {
  it('starts the steps at the pod’s own first event, not at node-wide events before it', () => {
    expect(podSteps(trace()).map((e) => e.seq)).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('steps only through the chosen kinds, both ways', () => {
    const steps = podSteps(trace());
    const cri = kindFilter(new Set(['cri']));
    expect(steps.map(stepKind)).toEqual(['worker', 'cri', 'cri', 'sync', 'events', 'probes']);
    expect(seekStep(steps, 2, 1, cri)).toBe(2);
    expect(seekStep(steps, 3, 1, cri)).toBe(-1);
    expect(seekStep(steps, 5, -1, cri)).toBe(2);
    expect(seekStep(steps, 0, 1, kindFilter(new Set()))).toBe(0);
  });

  it('finds the next error: a failed call, a sync with a failed action, a failed probe; not a Normal event', () => {
    const steps = podSteps(trace());
    const errors = steps.filter(isErrorStep).map((e) => e.seq);
    expect(errors).toEqual([5, 6, 8]);
    expect(seekStep(steps, 3, 1, isErrorStep)).toBe(3);
    expect(seekStep(steps, 4, 1, isErrorStep)).toBe(5);
  });
});
