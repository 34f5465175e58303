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

  it('on a full disk issues no seq past the durable reservation, and a run after a kill -9 starts above all it issued', () => {
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
    const run = () => {
      const journal = new TraceJournal({ dir, warn: (m) => warnings.push(m), reservationIO: io });
      journal.open();
      const recorder = new TraceRecorder(new FakeClock(0), 1_000, journal.resumeAfter + 1);
      recorder.reserveSeqs((next) => journal.reserveSeqs(next));
      recorder.subscribe((ev) => journal.append(ev));
      return { journal, recorder };
    };
    const served: number[] = [];
    const record = (r: TraceRecorder) =>
      served.push(r.record({ type: 'loop.skipped', errors: [], backoffMs: 0 }).seq);

    const first = run();
    for (let i = 0; i < 3_000; i++) record(first.recorder);
    full = true;
    // the sync reservation at start covered 1..10 000; the background renewal at half of it failed
    let refused: unknown;
    try {
      for (let i = 0; i < 20_000; i++) record(first.recorder);
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).toContain('seq 10001 asked for, only 10000 reserved');
    expect(Math.max(...served)).toBe(10_000);
    expect(warnings).toEqual([
      `trace journal: cannot reserve seqs in ${dir} (ENOSPC: no space left on device, write); ` +
        'no seq past 10000 is issued until it can',
    ]);
    // it tries again at the next event, and goes on once the disk has room
    expect(() => record(first.recorder)).toThrow(/only 10000 reserved/);
    full = false;
    record(first.recorder);
    expect(served.at(-1)).toBe(10_001);
    full = true;
    for (let i = 0; i < 9_999; i++) record(first.recorder);
    expect(() => record(first.recorder)).toThrow(/seq 20001 asked for, only 20000 reserved/);

    // kill -9: nothing flushed, nothing given back; the next run must not issue a seq a client already holds.
    // On a disk still full it cannot reserve any, so it does not start; once there is room it does.
    expect(() => run()).toThrow(/seq 20001 asked for, only 20000 reserved/);
    full = false;
    const second = run();
    expect(second.journal.resumeAfter).toBeGreaterThanOrEqual(Math.max(...served));
    expect(second.recorder.next).toBe(20_001);
  });
});
