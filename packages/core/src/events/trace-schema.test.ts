import { describe, expect, it } from 'vitest';
import { checkTraceEvent, TRACE_TYPES } from './trace.ts';
import { TRACE_PAYLOADS } from './trace-schema.ts';

const POD = { podUID: 'u1', pod: 'default/web' };
const result = (actions: unknown[], extra: Record<string, unknown> = {}) => ({
  seq: 12,
  time: 1_000,
  type: 'sync.result',
  workType: 'SyncPod',
  actions,
  durationMs: 3,
  ...POD,
  ...extra,
});

describe('checkTraceEvent: every field against its type schema', () => {
  it('accepts a full event and names the first bad payload field by its path', () => {
    expect(checkTraceEvent(result([{ action: 'StartContainer', target: 'app' }]))).toBeUndefined();
    expect(checkTraceEvent(result([{ action: 'StartContainer', target: 7 }]))).toBe(
      'sync.result: /actions/0/target: Expected string',
    );
    expect(checkTraceEvent(result([{ action: 'Reboot', target: 'app' }]))).toMatch(
      /^sync\.result: \/actions\/0\/action: /,
    );
  });

  it('refuses a missing field, an unknown enum value and a status that is not a PodStatus', () => {
    expect(checkTraceEvent({ seq: 1, time: 1, type: 'loop.iteration', source: 'sync', durationMs: 1 })).toBe(
      'loop.iteration: /pods: Expected required property',
    );
    expect(
      checkTraceEvent({ seq: 1, time: 1, type: 'worker.state', from: null, to: 'Sleeping', ...POD }),
    ).toMatch(/^worker\.state: \/to: /);
    expect(
      checkTraceEvent({
        seq: 1,
        time: 1,
        type: 'status.update',
        status: { phase: 'Running', conditions: [{}] },
        ...POD,
      }),
    ).toMatch(/^status\.update: \/status\/conditions\/0\/type: /);
    expect(
      checkTraceEvent({ seq: 1, time: 1, type: 'pleg.event', event: 'ContainerDied', containerID: 'c' }),
    ).toBe('pleg.event: /podUID: Expected required property');
  });

  it('checks the envelope fields an imported log sets', () => {
    const ok = {
      seq: 1,
      time: 1,
      type: 'log.raw',
      text: 'x',
      node: 'n1',
      origin: { line: 3 },
      inferred: false,
    };
    expect(checkTraceEvent(ok)).toBeUndefined();
    expect(checkTraceEvent({ ...ok, node: 5 })).toBe('log.raw: /node: Expected string');
    expect(checkTraceEvent({ ...ok, inferred: 'yes' })).toBe('log.raw: /inferred: Expected boolean');
    expect(checkTraceEvent({ ...ok, origin: { line: 'x' } })).toBe('origin must be {line: number}');
  });

  it('accepts fields it does not know, as a newer version may write them', () => {
    expect(checkTraceEvent(result([], { gpu: { count: 1 }, plan: undefined }))).toBeUndefined();
    expect(
      checkTraceEvent({
        seq: 2,
        time: 2,
        type: 'housekeeping',
        durationMs: 1,
        forgotten: 0,
        orphansKilled: 0,
        restarted: 0,
        cgroups: 4,
      }),
    ).toBeUndefined();
  });

  it('keeps the envelope messages and refuses a type the schema does not have', () => {
    expect(checkTraceEvent([])).toBe('event is not an object');
    expect(checkTraceEvent({ seq: 1.5, time: 1, type: 'backoff' })).toBe(
      'seq must be a non-negative integer',
    );
    expect(checkTraceEvent({ seq: 1, time: 1, type: 'toString' })).toBe('unknown type toString');
    expect(checkTraceEvent({ seq: 1, time: 1, type: '__proto__' })).toBe('unknown type __proto__');
  });

  it('lists every type of the schema in TRACE_TYPES', () => {
    expect([...TRACE_TYPES].sort()).toEqual(Object.keys(TRACE_PAYLOADS).sort());
    expect(TRACE_TYPES).toHaveLength(21);
  });
});
