import { describe, expect, it } from 'vitest';
import { traceBuilder } from './fixtures.ts';
import { appendOlder, MAX_TAIL, olderPage, tailPage } from './trace-tail.ts';

describe('the trace tail', () => {
  it('asks for the newest page, then the one before, never below what the server holds', () => {
    expect(tailPage({ oldest: 1, newest: 1_000 }, 50)).toEqual({ since: 950, limit: 50 });
    expect(tailPage({ oldest: 990, newest: 1_000 }, 50)).toEqual({ since: 989, limit: 11 });
    expect(tailPage({ oldest: null, newest: 0 }, 50)).toBeNull();
    expect(olderPage(951, 1, 50, 50)).toEqual({ since: 900, limit: 50 });
    expect(olderPage(930, 920, 50, 50)).toEqual({ since: 919, limit: 10 });
    expect(olderPage(920, 920, 60, 50)).toBeNull();
    // bounded: no page past MAX_TAIL, and the last one only fills up to it
    expect(olderPage(10_000, 1, MAX_TAIL, 50)).toBeNull();
    expect(olderPage(10_000, 1, MAX_TAIL - 20, 50)).toEqual({ since: 9_979, limit: 20 });
  });

  it('keeps the events newest first, each once', () => {
    const ev = traceBuilder(10);
    const page = [1, 2, 3].map((s) =>
      ev(s, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }),
    );
    const shown = appendOlder([], page);
    expect(shown.map((e) => e.seq)).toEqual([12, 11, 10]);
    const older = traceBuilder(8);
    const before = [1, 2].map((s) =>
      older(s, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }),
    );
    expect(appendOlder(shown, [...before, page[0] as (typeof page)[0]]).map((e) => e.seq)).toEqual([
      12, 11, 10, 9, 8,
    ]);
  });
});
