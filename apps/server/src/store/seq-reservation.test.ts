import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEQ_RESERVED_FILE, SEQ_RESERVED_NOW_FILE, SeqReservation } from './seq-reservation.ts';

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
});
