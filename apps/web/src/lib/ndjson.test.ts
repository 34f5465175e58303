import { describe, expect, it } from 'vitest';
import { formatNdjsonError, parseTraceNdjson } from './ndjson.ts';

const good = (seq: number) =>
  JSON.stringify({ seq, time: 1_000 + seq, type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });

describe('parseTraceNdjson', () => {
  it('reads one event per line and skips blank lines', () => {
    const r = parseTraceNdjson(`${good(1)}\n\n${good(2)}\n`);
    expect(r.errors).toEqual([]);
    expect(r.events.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('reports bad lines by their line number in the file', () => {
    const text = [
      good(1),
      '{"seq":2,"time":3,"type":"nope"}',
      '',
      'not json',
      '{"seq":-1,"time":1,"type":"housekeeping"}',
    ].join('\n');
    const r = parseTraceNdjson(text);
    expect(r.events).toHaveLength(1);
    expect(r.errors.map((e) => e.line)).toEqual([2, 4, 5]);
    expect(formatNdjsonError(r.errors[0] as { line: number; message: string })).toBe(
      'line 2: unknown type nope',
    );
    expect(r.errors[1]?.message).toMatch(/^not JSON/);
    expect(r.errors[2]?.message).toBe('seq must be a non-negative integer');
  });

  it('checks every field of an event against its type, naming the bad one', () => {
    const bad = JSON.stringify({
      seq: 2,
      time: 3,
      type: 'sync.result',
      workType: 'SyncPod',
      actions: [{ action: 'StartContainer', target: 7 }],
      durationMs: 1,
      podUID: 'u1',
      pod: 'default/web',
    });
    const r = parseTraceNdjson(`${good(1)}\n${bad}\n`);
    expect(r.events.map((e) => e.seq)).toEqual([1]);
    expect(r.errors.map(formatNdjsonError)).toEqual([
      'line 2: sync.result: /actions/0/target: Expected string',
    ]);
  });

  it('lists at most maxErrors bad lines', () => {
    const r = parseTraceNdjson('x\ny\nz', 2);
    expect(r.errors).toHaveLength(2);
    expect(r.truncated).toBe(true);
  });
});
