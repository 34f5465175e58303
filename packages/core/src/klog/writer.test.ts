import { describe, expect, it } from 'vitest';
import type { TraceEvent, TracePayload } from '../events/trace.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { goQuote, klogHeader, kvText } from './format.ts';
import { kubeletLogLines } from './writer.ts';

// 2026-11-23T14:02:03.123Z
const T = Date.UTC(2026, 10, 23, 14, 2, 3, 123);
const UID = '6c1b3a2e-0000-4000-8000-000000000001';
const ref = { pod: 'default/x', podUID: UID };
const ev = (p: TracePayload, time = T): TraceEvent => ({ ...p, seq: 1, time }) as TraceEvent;
const lines = (p: TracePayload, v = 10) => kubeletLogLines(ev(p), { v, pid: 4242 });

describe('klog text form', () => {
  it('header: severity, MMDD, UTC time with microseconds, pid padded to 7, file:line', () => {
    expect(klogHeader('I', T, 4242, 'kubelet.go:2421')).toBe(
      'I1123 14:02:03.123000    4242 kubelet.go:2421] ',
    );
    expect(klogHeader('E', Date.UTC(2026, 0, 5, 3, 4, 5, 6) + 0.5, 12345678, 'a.go:1')).toBe(
      'E0105 03:04:05.006500 12345678 a.go:1] ',
    );
  });

  it('quotes strings as Go does, writes numbers, booleans, lists and objects bare or as JSON', () => {
    expect(goQuote('say "hi"\\ \t\x01')).toBe('"say \\"hi\\"\\\\ \\t\\x01"');
    expect(kvText('pods', ['default/x'])).toBe('pods=["default/x"]');
    expect(kvText('exitCode', 1)).toBe('exitCode=1');
    expect(kvText('isTerminal', false)).toBe('isTerminal=false');
    expect(kvText('event', { ID: 'u', Type: 'ContainerDied', Data: 'c' })).toBe(
      'event={"ID":"u","Type":"ContainerDied","Data":"c"}',
    );
    // a line break turns the value into a block
    expect(kvText('output', 'a\nb\n')).toBe('output=<\n\ta\n\tb\n >');
  });
});

describe('kubeletLogLines: one trace event, the kubelet lines for it', () => {
  it('config ops (-v=2, RECONCILE -v=4)', () => {
    expect(lines({ type: 'config.update', op: 'ADD', source: 'api', ...ref })).toEqual([
      'I1123 14:02:03.123000    4242 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["default/x"]',
    ]);
    expect(lines({ type: 'config.update', op: 'RECONCILE', source: 'api', ...ref }, 3)).toEqual([]);
    expect(lines({ type: 'config.update', op: 'DELETE', source: 'api', ...ref }, 2)[0]).toContain(
      'kubelet.go:2437] "SyncLoop DELETE"',
    );
  });

  it('PLEG events: the loop line at -v=2, the relist line for a removal at -v=4, the exit code when known', () => {
    const died = lines({
      type: 'pleg.event',
      event: 'ContainerDied',
      containerID: 'c1',
      exitCode: 3,
      ...ref,
    });
    expect(died).toEqual([
      `I1123 14:02:03.123000    4242 generic.go:334] "Generic (PLEG): container finished" podID="${UID}" containerID="c1" exitCode=3`,
      `I1123 14:02:03.123000    4242 kubelet.go:2453] "SyncLoop (PLEG): event for pod" pod="default/x" event={"ID":"${UID}","Type":"ContainerDied","Data":"c1"}`,
    ]);
    const removed = { type: 'pleg.event', event: 'ContainerRemoved', containerID: 'c1', ...ref } as const;
    expect(lines(removed, 3)).toEqual([]);
    expect(lines(removed, 4)).toEqual([
      `I1123 14:02:03.123000    4242 generic.go:254] "GenericPLEG" podUID="${UID}" containerID="c1" oldState="exited" newState="non-existent"`,
    ]);
  });

  it('a sync error at -v=0 in the kubelet form; the sync function exit at -v=4', () => {
    const result: TracePayload = {
      type: 'sync.result',
      workType: 'SyncPod',
      durationMs: 3,
      isTerminal: false,
      actions: [
        {
          action: 'StartContainer',
          target: 'app',
          error: 'CrashLoopBackOff',
          message: `back-off 20s restarting failed container=app pod=x_default(${UID})`,
        },
      ],
      error: `failed to SyncPod: failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 20s restarting failed container=app pod=x_default(${UID})"`,
      ...ref,
    };
    expect(lines(result, 0)).toEqual([
      `E1123 14:02:03.123000    4242 pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off 20s restarting failed container=app pod=x_default(${UID})\\"" pod="default/x" podUID="${UID}"`,
    ]);
    expect(lines(result, 4)[0]).toBe(
      `I1123 14:02:03.123000    4242 kubelet.go:1681] "SyncPod exit" pod="default/x" podUID="${UID}" isTerminal=false`,
    );
    // an error outside the results is written as the engine gave it
    const other = { ...result, actions: [], error: 'network is not ready' } as TracePayload;
    expect(lines(other, 0)[0]).toContain('err="network is not ready"');
  });

  it('probes: failures at -v=1 with the output, successes at -v=3', () => {
    const failed: TracePayload = {
      type: 'probe.result',
      container: 'app',
      probe: 'Liveness',
      result: 'Failure',
      output: 'boom',
      ...ref,
    };
    expect(lines(failed, 1)).toEqual([
      `I1123 14:02:03.123000    4242 prober.go:107] "Probe failed" probeType="Liveness" pod="default/x" podUID="${UID}" containerName="app" probeResult="failure" output="boom"`,
    ]);
    expect(lines({ ...failed, result: 'Success' } as TracePayload, 2)).toEqual([]);
    expect(lines({ ...failed, result: 'Success' } as TracePayload, 3)[0]).toContain('"Probe succeeded"');
  });

  it('events through the recorder at -v=3, back-off at -v=3, the pod worker at -v=4', () => {
    const event: TracePayload = {
      type: 'k8s.event',
      eventType: 'Normal',
      reason: 'Pulling',
      message: 'Pulling image "busybox"',
      count: 1,
      fieldPath: 'spec.containers{app}',
      ...ref,
    };
    expect(lines(event, 2)).toEqual([]);
    expect(lines(event, 3)).toEqual([
      'I1123 14:02:03.123000    4242 event.go:389] "Event occurred" object="default/x" fieldPath="spec.containers{app}" kind="Pod" apiVersion="v1" type="Normal" reason="Pulling" message="Pulling image \\"busybox\\""',
    ]);
    const backoff: TracePayload = {
      type: 'backoff',
      kind: 'container',
      container: 'app',
      key: 'k',
      delayS: 80,
      until: T + 80_000,
      ...ref,
    };
    expect(lines(backoff, 3)).toEqual([
      `I1123 14:02:03.123000    4242 kuberuntime_manager.go:1312] "Back-off restarting failed container" err="back-off 1m20s restarting failed container=app pod=x_default(${UID})"`,
    ]);
    const update: TracePayload = {
      type: 'worker.update',
      updateType: 'SyncPodCreate',
      coalesced: false,
      ...ref,
    };
    expect(lines(update, 3)).toEqual([]);
    expect(lines(update, 4).map((l) => l.slice(l.indexOf('"')))).toEqual([
      `"Pod is being synced for the first time" pod="default/x" podUID="${UID}" updateType="create"`,
      `"Notifying pod of pending update" pod="default/x" podUID="${UID}" workType="sync"`,
    ]);
  });

  it('a skipped loop names its errors as an aggregate does', () => {
    expect(lines({ type: 'loop.skipped', errors: ['container runtime is down'], backoffMs: 100 }, 0)).toEqual(
      [
        'E1123 14:02:03.123000    4242 kubelet.go:2361] "Skipping pod synchronization" err="container runtime is down"',
      ],
    );
    expect(lines({ type: 'loop.skipped', errors: ['a', 'b'], backoffMs: 100 }, 0)[0]).toContain(
      'err="[a, b]"',
    );
  });

  it('events the kubelet logs nothing for give no line', () => {
    expect(lines({ type: 'pleg.relist', durationMs: 1, pods: 1, containers: 1, events: 0 })).toEqual([]);
    expect(lines({ type: 'runtime.state', ready: true, errors: [] })).toEqual([]);
  });

  it('every line it writes at -v=4 is one the importer reads back, not kept raw', () => {
    const all: TracePayload[] = [
      { type: 'config.update', op: 'ADD', source: 'api', ...ref },
      { type: 'worker.update', updateType: 'SyncPodCreate', coalesced: false, ...ref },
      { type: 'sync.start', workType: 'SyncPod', updateType: 'SyncPodCreate', ...ref },
      { type: 'pleg.event', event: 'ContainerStarted', containerID: 'c1', ...ref },
      {
        type: 'probe.result',
        container: 'app',
        probe: 'Readiness',
        result: 'Failure',
        output: 'a\nb',
        ...ref,
      },
      { type: 'status.update', status: { phase: 'Running' }, ...ref },
      { type: 'loop.iteration', source: 'sync', pods: 1, durationMs: 0 },
      { type: 'housekeeping', durationMs: 2, forgotten: 0, orphansKilled: 0, restarted: 0 },
      { type: 'worker.state', from: 'SyncPod', to: 'TerminatingPod', ...ref },
      { type: 'sync.start', workType: 'TerminatingPod', updateType: 'SyncPodKill', ...ref },
      { type: 'sync.result', workType: 'TerminatingPod', actions: [], durationMs: 1, ...ref },
      { type: 'worker.state', from: 'TerminatedPod', to: 'Forgotten', ...ref },
      {
        type: 'backoff',
        kind: 'container',
        container: 'app',
        key: 'k',
        delayS: 10,
        until: T + 10_000,
        ...ref,
      },
    ];
    const text = all.flatMap((p, i) => kubeletLogLines(ev(p, T + i), { v: 4, pid: 4242 })).join('\n');
    const { events, summary } = importKubeletLog(text, { year: 2026 });
    expect(summary.raw).toBe(0);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        'config.update',
        'pleg.event',
        'probe.result',
        'status.update',
        'worker.state',
      ]),
    );
    expect(events.find((e) => e.type === 'backoff')).toMatchObject({ pod: 'default/x', delayS: 10 });
    const probe = events.find((e) => e.type === 'probe.result');
    expect(probe?.type === 'probe.result' && probe.output).toBe('a\nb');
  });
});
