import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type JournaledTrace, openTrace } from './lifecycle-trace.ts';

let dir: string;
const opened: JournaledTrace[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'journaled-trace-'));
});
afterEach(async () => {
  for (const t of opened.splice(0)) await t.journal.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(capacity: number) {
  const clock = new FakeClock();
  const r = openTrace({ dir, clock, capacity, segmentBytes: 2048, warn: () => {} });
  opened.push(r.trace);
  return { ...r, clock };
}

const seqs = (evs: TraceEvent[]) => evs.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('JournaledTrace', () => {
  it('serves events older than the ring from the journal, then the ring', async () => {
    const { trace, firstBoot } = open(10);
    expect(firstBoot).toBe(true);
    for (let i = 0; i < 50; i++)
      trace.recorder.record({ type: 'loop.skipped', errors: [`e${i}`], backoffMs: i });
    expect(trace.recorder.oldest).toBe(41);
    expect(trace.oldest).toBe(1);
    expect(seqs(trace.since(0))).toEqual(range(1, 50));
    expect(seqs(trace.since(5, undefined, 3))).toEqual([6, 7, 8]);
    expect(seqs(trace.since(38, undefined, 5))).toEqual([39, 40, 41, 42, 43]);
    expect(seqs(trace.since(0, (e) => e.seq % 10 === 0))).toEqual([10, 20, 30, 40, 50]);
    const all: number[] = [];
    for await (const ev of trace.history(20)) all.push(ev.seq);
    expect(all).toEqual(range(21, 50));
  });

  it('continues seq and preloads the ring after a restart', async () => {
    const first = open(10);
    for (let i = 0; i < 25; i++)
      first.trace.recorder.record({ type: 'loop.skipped', errors: [], backoffMs: i });
    await first.trace.journal.close();
    opened.length = 0;

    const second = open(10);
    expect(second.firstBoot).toBe(false);
    expect(second.trace.next).toBe(26);
    expect(seqs(second.trace.recorder.since(0))).toEqual(range(16, 25));
    const ev = second.trace.recorder.record({
      type: 'server.start',
      version: 'x',
      runtime: 'simulated',
      endpoint: '',
    });
    expect(ev.seq).toBe(26);
    expect(seqs(second.trace.since(0))).toEqual(range(1, 26));
  });
});
