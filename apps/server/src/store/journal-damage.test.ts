/**
 * Damage inside a segment that is not the newest: a block of zeros a lost page left,
 * or a flipped bit, inside one or more records. Every record carries a checksum (segment.ts), so such a record
 * is found, skipped by readers with the good records around it kept, counted (badRecords, the metric
 * syncscope_journal_bad_records_total) and named in one warning with the file and the byte offset. Journals
 * written before checksums still read.
 */
import { chmodSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceJournal } from './journal.ts';
import { parseSegmentName, segmentName } from './segment.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';
import { podEvent } from './test-events.ts';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('TraceJournal: damage inside an older segment', () => {
  let dir: string;
  let warnings: string[];
  const make = () => new TraceJournal({ dir, segmentBytes: 4096, warn: (m) => warnings.push(m) });
  const segments = () =>
    readdirSync(dir)
      .filter((n) => parseSegmentName(n) !== undefined)
      .sort()
      .map((n) => join(dir, n));
  /** Byte offset of the start of each line of path. */
  const lineStarts = (path: string) => {
    const text = readFileSync(path);
    const starts = [0];
    for (let i = text.indexOf(0x0a); i >= 0 && i < text.length - 1; i = text.indexOf(0x0a, i + 1))
      starts.push(i + 1);
    return starts;
  };
  const write = async (n: number) => {
    const j = make();
    await j.open();
    for (let s = 1; s <= n; s++) j.append(podEvent(s, `uid-${s % 3}`));
    await j.close();
  };

  beforeEach(() => {
    dir = newStoreDir('trace');
    warnings = [];
  });
  afterEach(() => removeStoreDir(dir));

  it('finds a block of zeros that runs several records together, skips only them, counts and names it', async () => {
    await write(120);
    const first = segments()[0] as string;
    expect(segments().length).toBeGreaterThan(2);
    // zeros from the middle of line 5 (seq 5) to the middle of line 8 (seq 8): what is left of the two ends
    // reads as one line that starts `{"seq":5,` and ends `}`
    const starts = lineStarts(first);
    const from = (starts[4] as number) + 20;
    const to = (starts[7] as number) + 30;
    const buf = readFileSync(first);
    buf.fill(0, from, to);
    writeFileSync(first, buf);

    const j = make();
    await j.open();
    expect(warnings).toEqual([`trace journal: ${first}: 1 bad record skipped, at byte ${starts[4]}`]);
    expect(j.badRecords).toBe(1);
    await j.whenIndexed(); // and not counted again when the checksums are checked
    expect(j.badRecords).toBe(1);
    const read = (await j.read(0)).map((e) => e.seq);
    expect(read).toEqual([...range(1, 4), ...range(9, 120)]);
    expect((await j.read(0)).map((e) => e.seq)).toEqual(read);
    const exported: number[] = [];
    for await (const e of j.events(0)) exported.push(e.seq);
    expect(exported).toEqual(read);
    await j.close();
  });

  it('finds a record changed in place that still parses (a flipped digit), and never serves it', async () => {
    await write(120);
    const first = segments()[0] as string;
    const starts = lineStarts(first);
    const buf = readFileSync(first);
    const line = buf.toString('utf8', starts[9], (starts[10] as number) - 1);
    const at = (starts[9] as number) + line.indexOf('"time":1010') + '"time":101'.length;
    buf[at] = 0x37; // "time":1010 → "time":1017, valid JSON
    writeFileSync(first, buf);

    const j = make();
    await j.open();
    // readers check every record's checksum: it is never served, from the first read on
    expect((await j.read(0)).map((e) => e.seq)).toEqual([...range(1, 9), ...range(11, 120)]);
    // the older segments' checksums are checked after open, in the background, and the damage reported then
    await j.whenIndexed();
    expect(warnings).toEqual([
      `trace journal: ${first}: 1 bad record skipped (checksum), at byte ${starts[9]}`,
    ]);
    expect(j.badRecords).toBe(1);
    expect((await j.read(0)).every((e) => e.time === 1_000 + e.seq)).toBe(true);
    await j.close();
  });

  it('reads a journal written before checksums, finds zeros in it too, and appends checksummed records after', async () => {
    // the format of earlier versions: the event's JSON, seq first, no checksum
    const legacy = (e: TraceEvent) => `${JSON.stringify(e)}\n`;
    const older = join(dir, segmentName(1));
    const newest = join(dir, segmentName(41));
    const olderText = range(1, 40)
      .map((s) => legacy(podEvent(s)))
      .join('');
    rmSync(dir, { recursive: true, force: true });
    make().open(); // makes the directory
    writeFileSync(older, olderText);
    writeFileSync(
      newest,
      range(41, 50)
        .map((s) => legacy(podEvent(s)))
        .join(''),
    );

    let j = make();
    expect(await j.open()).toEqual({ lastSeq: 50, events: 50 });
    expect(warnings).toEqual([]);
    expect((await j.read(0)).map((e) => e.seq)).toEqual(range(1, 50));
    j.append(podEvent(51));
    await j.close();
    expect(readFileSync(newest, 'utf8').split('\n').at(-2)).toMatch(/^\{"seq":51,.*,"crc":"[0-9a-f]{8}"\}$/);

    // zeros from the middle of seq 5 to the middle of seq 8 in the older, checksum-less segment
    const buf = readFileSync(older);
    const starts = lineStarts(older);
    buf.fill(0, (starts[4] as number) + 20, (starts[7] as number) + 30);
    writeFileSync(older, buf);
    j = make();
    await j.open();
    expect(warnings).toEqual([`trace journal: ${older}: 1 bad record skipped, at byte ${starts[4]}`]);
    expect((await j.read(0)).map((e) => e.seq)).toEqual([...range(1, 4), ...range(9, 51)]);
    await j.close();
  });

  it('writes its segments 0600 in a 0700 directory, and tightens looser ones at open', async () => {
    await write(60);
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(dir)).toBe(0o700);
    for (const s of segments()) expect(mode(s)).toBe(0o600);
    chmodSync(dir, 0o755);
    chmodSync(segments()[0] as string, 0o644);
    const j = make();
    await j.open();
    expect(mode(dir)).toBe(0o700);
    expect(mode(segments()[0] as string)).toBe(0o600);
    await j.close();
  });
});
