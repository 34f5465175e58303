import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

let warnings: string[] = [];

/** The highest seq reserved on disk (seq-reservation.ts keeps two files; a start takes the larger). */
function reservedOnDisk(): number {
  const read = (name: string) =>
    existsSync(join(dir, name)) ? Number(readFileSync(join(dir, name), 'utf8')) : 0;
  return Math.max(read('seq-reserved'), read('seq-reserved.now'));
}

async function open(capacity: number, podStoreDir?: string, flushIntervalMs?: number, segmentBytes = 2048) {
  const clock = new FakeClock();
  warnings = [];
  const warn = (m: string) => warnings.push(m);
  const r = await openTrace({ dir, clock, capacity, segmentBytes, warn, podStoreDir, flushIntervalMs });
  opened.push(r.trace);
  return { ...r, clock };
}

const seqs = (evs: TraceEvent[]) => evs.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('JournaledTrace', () => {
  it('serves events older than the ring from the journal, then the ring', async () => {
    const { trace, firstBoot } = await open(10);
    expect(firstBoot).toBe(true);
    for (let i = 0; i < 50; i++)
      trace.recorder.record({ type: 'loop.skipped', errors: [`e${i}`], backoffMs: i });
    expect(trace.recorder.oldest).toBe(41);
    expect(trace.oldest).toBe(1);
    // since() answers from the ring alone; sinceAsync reaches into the journal
    expect(seqs(trace.since(0))).toEqual(range(41, 50));
    expect(seqs(await trace.sinceAsync(0))).toEqual(range(1, 50));
    expect(seqs(await trace.sinceAsync(5, undefined, 3))).toEqual([6, 7, 8]);
    expect(seqs(await trace.sinceAsync(38, undefined, 5))).toEqual([39, 40, 41, 42, 43]);
    expect(seqs(await trace.sinceAsync(0, (e) => e.seq % 10 === 0))).toEqual([10, 20, 30, 40, 50]);
    expect(seqs(await trace.sinceAsync(45))).toEqual(range(46, 50));
    const all: number[] = [];
    for await (const ev of trace.history(20)) all.push(ev.seq);
    expect(all).toEqual(range(21, 50));
  });

  it('continues seq and preloads the ring after a restart', async () => {
    const first = await open(10);
    for (let i = 0; i < 25; i++)
      first.trace.recorder.record({ type: 'loop.skipped', errors: [], backoffMs: i });
    await first.trace.journal.close();
    opened.length = 0;

    const second = await open(10);
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
    expect(seqs(await second.trace.sinceAsync(0))).toEqual(range(1, 26));
  });

  it('never reissues a seq that was handed out before a crash, even one never written', async () => {
    // its queue is not written on a timer while the next run opens the directory, as after a kill
    const first = await open(10, undefined, 3_600_000);
    const served: number[] = [];
    for (let i = 0; i < 7_000; i++)
      served.push(first.trace.recorder.record({ type: 'loop.skipped', errors: [], backoffMs: i }).seq);
    await first.trace.journal.flush();
    // the newest events were served but are still queued when the process dies (no flush, no close)
    for (let i = 0; i < 50; i++)
      served.push(first.trace.recorder.record({ type: 'loop.skipped', errors: [], backoffMs: i }).seq);
    expect(first.trace.journal.flushedSeq).toBe(7_000);
    const reserved = reservedOnDisk();
    expect(reserved).toBeGreaterThanOrEqual(7_050);
    opened.length = 0; // "killed": its queue never reaches the file

    const second = await open(10);
    const after = second.trace.recorder.record({
      type: 'server.start',
      version: 'x',
      runtime: 'sim',
      endpoint: '',
    });
    expect(after.seq).toBe(reserved + 1);
    expect(after.seq).toBeGreaterThan(Math.max(...served));
    // the journal keeps what was written, then the gap, then the new run
    expect((await second.trace.sinceAsync(6_998)).map((e) => e.seq)).toEqual([6_999, 7_000, reserved + 1]);
    await first.trace.journal.close().catch(() => {});
  });

  it('never issues a seq beyond what is reserved on disk, and gives back the unused ones on a clean close', async () => {
    // segments of a megabyte: the burst is about seqs, not about how the journal is cut into files
    const first = await open(10, undefined, undefined, 1 << 20);
    expect(reservedOnDisk()).toBe(10_000);
    // one synchronous burst: no background renewal can finish, so each block is reserved as it runs out
    for (let i = 1; i <= 25_000; i++) {
      const ev = first.trace.recorder.record({ type: 'loop.skipped', errors: [], backoffMs: i });
      if (i % 10 === 0 || i % 10_000 < 3) expect(ev.seq).toBeLessThanOrEqual(reservedOnDisk());
    }
    expect(reservedOnDisk()).toBe(30_000);
    await first.trace.journal.close();
    opened.length = 0;
    expect(reservedOnDisk()).toBe(25_000);
    expect((await open(10)).trace.next).toBe(25_001);
  });

  it('reports a missing or empty pod store while the journal shows pods never removed', async () => {
    const store = join(dir, 'store', 'pods');
    const first = await open(10, store);
    const pod = (op: 'ADD' | 'REMOVE', name: string) =>
      first.trace.recorder.record({
        type: 'config.update',
        op,
        source: 'api',
        podUID: `u-${name}`,
        pod: `default/${name}`,
      });
    first.trace.recorder.record({ type: 'server.start', version: 'x', runtime: 'sim', endpoint: '' });
    pod('ADD', 'a');
    pod('ADD', 'b');
    pod('REMOVE', 'a');
    expect(warnings).toEqual([]); // a first start with nothing in the journal
    await first.trace.journal.close();
    opened.length = 0;

    await open(10, store);
    expect(warnings).toEqual([
      `pod store: ${store} is missing, but the trace journal ${dir} shows 1 pod never removed (default/b); ` +
        'they are not restored',
    ]);
    await opened.splice(0)[0]?.journal.close();

    mkdirSync(store, { recursive: true });
    await open(10, store);
    expect(warnings).toEqual([expect.stringContaining(`pod store: ${store} holds no pods`)]);
    await opened.splice(0)[0]?.journal.close();

    writeFileSync(join(store, 'u-b.json'), '{}');
    await open(10, store);
    expect(warnings).toEqual([]);
  });
});
