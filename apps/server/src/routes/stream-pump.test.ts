import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, describe, expect, it } from 'vitest';
import { type JournaledTrace, openTrace } from '../lifecycle-trace.ts';
import { type Page, type Pumped, StreamPump } from './stream-pump.ts';

/** A stream client as trace-stream.ts drives one: a page a visit, woken by the pump when a page comes in. */
class Reader implements Pumped {
  readonly seqs: number[] = [];
  private done?: () => void;
  readonly finished: Promise<void>;
  constructor(
    private readonly pump: StreamPump,
    private readonly until: number,
    private cursor = 0,
  ) {
    this.finished = new Promise((resolve) => {
      this.done = resolve;
    });
  }
  pumpOnce(): boolean {
    const page: Page | undefined = this.pump.page(this.cursor, this);
    if (!page) return false;
    const msg = JSON.parse(page.data.toString()) as { events: TraceEvent[] };
    for (const ev of msg.events) this.seqs.push(ev.seq);
    this.cursor = page.last;
    if (this.cursor >= this.until) this.done?.();
    return this.cursor < this.until;
  }
}

describe('StreamPump over a journaled trace', () => {
  let dir: string;
  let trace: JournaledTrace;
  afterEach(async () => {
    await trace?.journal.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a backlog older than the ring from the journal without a blocking read, shared by clients', async () => {
    dir = mkdtempSync(join(tmpdir(), 'syncscope-pump-'));
    ({ trace } = await openTrace({ dir, clock: new FakeClock(), capacity: 100, segmentBytes: 64 * 1024 }));
    for (let i = 0; i < 3000; i++)
      trace.recorder.record({
        type: 'housekeeping',
        durationMs: 1,
        forgotten: 0,
        orphansKilled: 0,
        restarted: 0,
      });
    await trace.journal.flush();
    const last = trace.next - 1;
    expect(trace.ringCovers(0)).toBe(false);

    const pump = new StreamPump(trace);
    const a = new Reader(pump, last);
    const b = new Reader(pump, last);
    pump.wake(a);
    pump.wake(b);
    await Promise.all([a.finished, b.finished]);

    const want = Array.from({ length: last }, (_, i) => i + 1);
    expect(a.seqs).toEqual(want);
    expect(b.seqs).toEqual(want);
  });
});
