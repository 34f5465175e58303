import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { TraceRecorder } from './recorder.ts';

describe('TraceRecorder listeners', () => {
  afterEach(() => vi.restoreAllMocks());

  it('removes a listener that throws, logs it with its error, and keeps calling the others', () => {
    const logged: unknown[][] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
    const trace = new TraceRecorder(new FakeClock());
    const boom = new Error('disk gone');
    let bad = 0;
    const good: number[] = [];
    trace.subscribe(() => {
      bad++;
      throw boom;
    });
    trace.subscribe((ev) => good.push(ev.seq));
    trace.record({ type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    trace.record({ type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    expect(bad).toBe(1);
    expect(good).toEqual([1, 2]);
    expect(logged).toEqual([[expect.stringContaining('listener threw on event seq 1'), boom]]);
    expect(trace.failures).toEqual([
      { name: 'a listener', seq: 1, type: 'loop.iteration', error: 'disk gone' },
    ]);
  });

  it('names a failed listener by what it was subscribed as', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const trace = new TraceRecorder(new FakeClock());
    trace.subscribe(() => {
      throw new Error('EIO');
    }, 'the trace journal');
    trace.record({ type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 });
    expect(trace.failures.map((f) => `${f.name}: ${f.error}`)).toEqual(['the trace journal: EIO']);
  });
});
