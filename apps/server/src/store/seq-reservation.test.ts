import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceJournal } from './journal.ts';
import {
  diskIO,
  type ReservationIO,
  SEQ_RESERVED_FILE,
  SEQ_RESERVED_NOW_FILE,
  SeqReservation,
} from './seq-reservation.ts';

let dir: string;
let warnings: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'seq-reserved-'));
  warnings = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const make = () => new SeqReservation(dir, (m) => warnings.push(m), 1_000);
const onDisk = (name: string) =>
  existsSync(join(dir, name)) ? Number(readFileSync(join(dir, name), 'utf8')) : undefined;

describe('SeqReservation', () => {
  it('reserves at once when nothing is left, renews in the background from half a block, gives back on release', async () => {
    const r = make();
    expect(r.open(0)).toBe(0);
    expect(r.extend(1)).toBe(1_000); // nothing reserved yet: written before it returns
    expect(onDisk(SEQ_RESERVED_NOW_FILE)).toBe(1_000);
    expect(r.extend(300)).toBe(1_000); // more than half left: nothing to do
    expect(r.extend(501)).toBe(1_000); // half left: renewal started, not yet durable, not granted
    expect(onDisk(SEQ_RESERVED_FILE)).toBeUndefined();
    await r.settle();
    expect(onDisk(SEQ_RESERVED_FILE)).toBe(1_500);
    expect(r.extend(750)).toBe(1_500); // granted once on disk

    // the renewal did not finish in time: the end of the grant is reserved synchronously
    expect(r.extend(1_501)).toBe(2_500);
    expect(onDisk(SEQ_RESERVED_NOW_FILE)).toBe(2_500);

    r.release(1_600);
    expect(onDisk(SEQ_RESERVED_FILE)).toBe(1_600);
    expect(onDisk(SEQ_RESERVED_NOW_FILE)).toBeUndefined();
    expect(make().open(1_600)).toBe(1_600);
    expect(warnings).toEqual([]);
  });

  it('starts above the larger file, never gives back below it, and assumes the worst of a damaged file', () => {
    writeFileSync(join(dir, SEQ_RESERVED_FILE), '4000\n');
    writeFileSync(join(dir, SEQ_RESERVED_NOW_FILE), '4500\n');
    const r = make();
    expect(r.open(3_900)).toBe(4_500);
    r.release(4_000); // a run that issued nothing above the earlier reservation keeps it
    expect(make().open(3_900)).toBe(4_500);

    writeFileSync(join(dir, SEQ_RESERVED_NOW_FILE), 'garbage');
    expect(make().open(3_900)).toBe(5_900); // two blocks past the journal
    expect(warnings).toEqual([
      expect.stringContaining(`${join(dir, SEQ_RESERVED_NOW_FILE)} does not hold a seq`),
    ]);
  });

  it('on a full disk holds events past the durable reservation, issues them once it has room, and a run after a kill -9 starts above all it issued', async () => {
    // a disk that fills up: every reservation write fails with ENOSPC, as Node reports it
    let full = false;
    const enospc = () =>
      Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      });
    const io: ReservationIO = {
      write: (path, text) => {
        if (full) throw enospc();
        diskIO.write(path, text);
      },
      writeAsync: async (path, text) => {
        if (full) throw enospc();
        await diskIO.writeAsync(path, text);
      },
    };
    const run = async () => {
      const journal = new TraceJournal({ dir, warn: (m) => warnings.push(m), reservationIO: io });
      await journal.open();
      const recorder = new TraceRecorder(new FakeClock(0), 1_000, journal.resumeAfter + 1);
      recorder.reserveSeqs((next) => journal.reserveSeqs(next));
      recorder.subscribe((ev) => journal.append(ev));
      return { journal, recorder };
    };
    const served: number[] = [];
    const record = (r: TraceRecorder) =>
      served.push(r.record({ type: 'loop.skipped', errors: [], backoffMs: 0 }).seq);

    const first = await run();
    for (let i = 0; i < 3_000; i++) record(first.recorder);
    full = true;
    // the sync reservation at start covered 1..10 000; the background renewal at half of it failed: past
    // 10 000 events are held without a seq, never thrown at the engine, never served
    for (let i = 0; i < 20_000; i++) record(first.recorder);
    expect(served.filter((s) => s > 0)).toHaveLength(10_000);
    expect(Math.max(...served)).toBe(10_000);
    expect(first.recorder.holding).toBe(13_000);
    expect(first.recorder.since(9_999).map((e) => e.seq)).toEqual([10_000]);
    expect(first.journal.failure?.message).toBe(
      `trace journal: cannot write ${join(dir, SEQ_RESERVED_NOW_FILE)}: no space left on device`,
    );
    expect(warnings).toEqual([
      `trace journal: cannot reserve seqs in ${dir} (ENOSPC: no space left on device, write); ` +
        'no seq past 10000 is issued until it can',
    ]);
    // asked again while the disk is still full: still held
    expect(first.recorder.resume()).toBe(false);
    // once the disk has room, the held events are issued in order, before anything newer
    const issued: number[] = [];
    first.recorder.subscribe((ev) => issued.push(ev.seq));
    full = false;
    expect(first.recorder.resume()).toBe(true);
    expect(first.journal.failure).toBeUndefined();
    expect(issued).toEqual(Array.from({ length: 13_000 }, (_, i) => 10_001 + i));
    record(first.recorder);
    expect(first.recorder.next - 1).toBe(23_001);
    full = true;
    for (let i = 0; i < 20_000; i++) record(first.recorder);
    const lastServed = first.recorder.next - 1;
    expect(first.recorder.holding).toBeGreaterThan(0);

    // kill -9: nothing flushed, nothing given back; the next run must not issue a seq a client already holds.
    // On a disk still full it reserves none and holds what it records; once there is room it goes on above.
    const stuck = await run();
    expect(stuck.recorder.next).toBe(lastServed + 1);
    record(stuck.recorder);
    expect(stuck.recorder.holding).toBe(1);
    full = false;
    const second = await run();
    expect(second.journal.resumeAfter).toBeGreaterThanOrEqual(lastServed);
    expect(second.recorder.next).toBe(lastServed + 1);
  });
});
