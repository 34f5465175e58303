import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../clock/fake-clock.ts';
import { HELD_EVENTS_MAX, RESERVE_RETRY_MS, TraceRecorder } from './recorder.ts';

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

describe('TraceRecorder seq reservation', () => {
  const ev = { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 } as const;

  it('never throws when no seq can be reserved: holds events unserved, issues them in order once it can', async () => {
    const clock = new FakeClock();
    const trace = new TraceRecorder(clock);
    let grant = 3;
    const asked: number[] = [];
    trace.reserveSeqs((next) => {
      asked.push(next);
      return grant;
    });
    const seen: number[] = [];
    trace.subscribe((e) => seen.push(e.seq));
    for (let i = 0; i < 6; i++) expect(() => trace.record(ev)).not.toThrow();
    expect(seen).toEqual([1, 2, 3]);
    expect(trace.holding).toBe(3);
    expect(trace.next).toBe(4);
    expect(trace.since(0).map((e) => e.seq)).toEqual([1, 2, 3]);
    // asked again only after RESERVE_RETRY_MS of engine time, not at every event
    const tries = asked.length;
    trace.record(ev);
    expect(asked.length).toBe(tries);
    grant = 100;
    await clock.step(RESERVE_RETRY_MS);
    const late = trace.record(ev);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(late.seq).toBe(8);
    expect(trace.holding).toBe(0);
  });

  it('holds at most HELD_EVENTS_MAX, counting the rest as dropped; resume() asks at once', () => {
    const trace = new TraceRecorder(new FakeClock(), 10);
    let grant = 0;
    trace.reserveSeqs(() => grant);
    for (let i = 0; i < HELD_EVENTS_MAX + 5; i++) trace.record(ev);
    expect(trace.holding).toBe(HELD_EVENTS_MAX);
    expect(trace.dropped).toBe(5);
    expect(trace.resume()).toBe(false);
    grant = 2 * HELD_EVENTS_MAX;
    expect(trace.resume()).toBe(true);
    expect(trace.next).toBe(HELD_EVENTS_MAX + 1);
  });
});

describe('TraceRecorder as a trace source without a disk', () => {
  const record = (trace: TraceRecorder, n: number) => {
    for (let i = 0; i < n; i++)
      trace.record({ type: 'loop.iteration', source: 'sync', pods: i % 3, durationMs: 0 });
  };

  it('answers sinceAsync as since, and covers every cursor from its ring', async () => {
    const trace = new TraceRecorder(new FakeClock(), 100);
    expect(trace.ringCovers(0)).toBe(true);
    record(trace, 250);
    const two = (ev: { type: string; pods?: number }) => ev.pods === 2;
    expect(await trace.sinceAsync(0)).toEqual(trace.since(0));
    expect(await trace.sinceAsync(200, two, 5)).toEqual(trace.since(200, two, 5));
    expect((await trace.sinceAsync(0)).map((e) => e.seq)[0]).toBe(151);
    expect(trace.ringCovers(0)).toBe(true);
  });

  it('streams its whole ring past a page, oldest first, filtered, and what is recorded meanwhile', async () => {
    const trace = new TraceRecorder(new FakeClock(), 5_000);
    record(trace, 2_500);
    const seqs: number[] = [];
    for await (const ev of trace.history(10, (e) => e.seq % 2 === 0)) {
      seqs.push(ev.seq);
      if (ev.seq === 2_500) record(trace, 2);
    }
    expect(seqs).toEqual(Array.from({ length: 1_246 }, (_, i) => 12 + 2 * i));
  });
});
