import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceJournal, type TraceJournalOptions } from './journal.ts';
import { parseSegmentName } from './segment.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';
import { podEvent as ev } from './test-events.ts';

const seqs = (evs: TraceEvent[]) => evs.map((e) => e.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('TraceJournal', () => {
  let dir: string;
  let warnings: string[];
  const journals: TraceJournal[] = [];
  const make = (opts: Partial<TraceJournalOptions> = {}) => {
    const j = new TraceJournal({ dir, warn: (m) => warnings.push(m), ...opts });
    journals.push(j);
    return j;
  };
  const segmentFiles = () =>
    readdirSync(dir)
      .filter((n) => parseSegmentName(n) !== undefined)
      .sort();

  beforeEach(() => {
    dir = newStoreDir('trace');
    warnings = [];
  });
  afterEach(async () => {
    for (const j of journals.splice(0)) await j.close();
    removeStoreDir(dir);
  });

  it('reads back what was appended, queued or written, and again after a restart', async () => {
    const j = make();
    expect(await j.open()).toEqual({ lastSeq: 0, events: 0 });
    for (let s = 1; s <= 10; s++) j.append(ev(s, s % 2 ? 'uid-odd' : 'uid-even'));
    expect(seqs(await j.read(7))).toEqual([8, 9, 10]); // still queued
    await j.flush();
    expect(j.flushedSeq).toBe(10);
    expect(seqs(await j.read(0))).toEqual(range(1, 10));
    expect(seqs(await j.read(5))).toEqual(range(6, 10));
    expect(seqs(await j.read(0, 3))).toEqual([1, 2, 3]);
    expect(seqs(await j.read(2, 2, (e) => 'podUID' in e && e.podUID === 'uid-even'))).toEqual([4, 6]);
    expect(await j.read(10)).toEqual([]);
    await j.close();

    const again = make();
    expect(await again.open()).toEqual({ lastSeq: 10, events: 10 });
    expect(await again.read(0)).toEqual(range(1, 10).map((s) => ev(s, s % 2 ? 'uid-odd' : 'uid-even')));
    expect(warnings).toEqual([]);
  });

  it('writes queued events on close and ignores appends after it', async () => {
    const j = make();
    await j.open();
    j.append(ev(1));
    j.append(ev(2));
    await j.close();
    j.append(ev(3));
    const again = make();
    expect(await again.open()).toEqual({ lastSeq: 2, events: 2 });
  });

  it('drops an event whose seq does not increase, with a warning', async () => {
    const j = make();
    await j.open();
    j.append(ev(5));
    j.append(ev(5));
    j.append(ev(3));
    j.append(ev(6));
    await j.flush();
    expect(seqs(await j.read(0))).toEqual([5, 6]);
    expect(warnings).toHaveLength(1);
  });

  it('rolls to a new segment named after its first seq once segmentBytes is reached', async () => {
    const j = make({ segmentBytes: 1000 });
    await j.open();
    for (let s = 1; s <= 60; s++) {
      j.append(ev(s));
      if (s % 7 === 0) await j.flush();
    }
    await j.flush();
    const files = segmentFiles();
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(1000);
      expect(JSON.parse(text.slice(0, text.indexOf('\n'))).seq).toBe(parseSegmentName(f));
    }
    expect(seqs(await j.read(0))).toEqual(range(1, 60));
    // a since that falls inside a middle segment, and one on a segment boundary
    expect(seqs(await j.read(33, 4))).toEqual([34, 35, 36, 37]);
    const second = parseSegmentName(files[1] as string) as number;
    expect(seqs(await j.read(second - 1, 1))).toEqual([second]);
    await expect(j.open()).rejects.toThrow(/twice/);
  });

  it('deletes the oldest segments beyond maxBytes and keeps the newest history', async () => {
    const j = make({ segmentBytes: 1000, maxBytes: 3000 });
    await j.open();
    for (let s = 1; s <= 200; s++) {
      j.append(ev(s));
      if (s % 10 === 0) await j.flush();
    }
    const files = segmentFiles();
    const onDisk = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(onDisk).toBeLessThanOrEqual(3000);
    expect(j.bytes).toBe(onDisk);
    const kept = seqs(await j.read(0));
    expect(kept[0]).toBeGreaterThan(1);
    expect(kept).toEqual(range(kept[0] as number, 200));
    expect(kept[0]).toBe(parseSegmentName(files[0] as string));

    // a restart with a smaller limit trims at once
    await j.close();
    const smaller = make({ segmentBytes: 1000, maxBytes: 1500 });
    const { lastSeq, events } = await smaller.open();
    expect(lastSeq).toBe(200);
    expect(smaller.bytes).toBeLessThanOrEqual(1500);
    expect(events).toBe((await smaller.read(0)).length);
  });

  it('truncates a torn last line on open and carries on with the next seq', async () => {
    const j = make({ segmentBytes: 1000 });
    await j.open();
    for (let s = 1; s <= 30; s++) j.append(ev(s));
    await j.close();
    const last = join(dir, segmentFiles().at(-1) as string);
    const sizeBefore = statSync(last).size;
    appendFileSync(last, '{"seq":31,"time":1031,"type":"config.upd');

    const again = make({ segmentBytes: 1000 });
    expect(await again.open()).toEqual({ lastSeq: 30, events: 30 });
    expect(statSync(last).size).toBe(sizeBefore);
    expect(warnings).toHaveLength(1);
    again.append(ev(31));
    again.append(ev(32));
    await again.close();

    const third = make();
    expect(await third.open()).toEqual({ lastSeq: 32, events: 32 });
    expect(seqs(await third.read(0))).toEqual(range(1, 32));
    expect(warnings).toHaveLength(1);
  });

  it('cuts only what follows the last good line: a bad line between good ones stays, skipped on read', async () => {
    const j = make();
    await j.open();
    j.append(ev(1));
    await j.flush();
    const file = join(dir, segmentFiles()[0] as string);
    appendFileSync(file, 'garbage that is not json\n');
    j.append(ev(2));
    await j.close();
    appendFileSync(file, `${JSON.stringify(ev(2))}\n\0\0\0\0`); // a repeated seq, then zeros from a lost page
    const goodBytes = statSync(file).size - JSON.stringify(ev(2)).length - 5;

    const again = make();
    expect(await again.open()).toEqual({ lastSeq: 2, events: 2 });
    expect(statSync(file).size).toBe(goodBytes);
    expect(seqs(await again.read(0))).toEqual([1, 2]);
  });

  it('deletes a newest segment that holds nothing whole and takes lastSeq from the one before', async () => {
    const j = make();
    await j.open();
    for (let s = 1; s <= 5; s++) j.append(ev(s));
    await j.close();
    writeFileSync(join(dir, 'trace-0000000000000006.ndjson'), '{"seq":6,"ti');

    const again = make();
    expect(await again.open()).toEqual({ lastSeq: 5, events: 5 });
    expect(segmentFiles()).toEqual(['trace-0000000000000001.ndjson']);
  });

  it('gives the newest n events, and all history through the async iterator', async () => {
    const j = make({ segmentBytes: 600 });
    await j.open();
    for (let s = 1; s <= 40; s++) j.append(ev(s));
    await j.flush();
    for (let s = 41; s <= 43; s++) j.append(ev(s)); // queued, not yet written
    expect(seqs(await j.tail(5))).toEqual([39, 40, 41, 42, 43]);
    expect(seqs(await j.tail(100))).toEqual(range(1, 43));

    const all: number[] = [];
    for await (const e of j) all.push(e.seq);
    expect(all).toEqual(range(1, 43));
    const later: number[] = [];
    for await (const e of j.events(20, (e) => e.seq % 2 === 0)) later.push(e.seq);
    expect(later).toEqual(range(21, 43).filter((s) => s % 2 === 0));
  });

  it('lets a restarted server continue the seq and keep the history before it', async () => {
    const clock = new FakeClock();
    const first = make();
    const boot = async (journal: TraceJournal) => {
      const { lastSeq } = await journal.open();
      const trace = new TraceRecorder(clock, 100, lastSeq + 1);
      trace.preload(await journal.tail(100));
      const heard: number[] = [];
      trace.subscribe((e) => heard.push(e.seq));
      trace.subscribe((e) => journal.append(e));
      trace.record({ type: 'server.start', version: 'test', runtime: 'sim', endpoint: 'unix:///sim.sock' });
      return { trace, heard };
    };
    const one = await boot(first);
    one.trace.record({ type: 'config.update', op: 'ADD', source: 'api', podUID: 'uid-a', pod: 'default/a' });
    expect(seqs(one.trace.since(0))).toEqual([1, 2]);
    await first.close();

    const two = await boot(make());
    expect(two.heard).toEqual([3]); // the preloaded history is not announced again
    expect(two.trace.since(0).map((e) => `${e.seq} ${e.type}`)).toEqual([
      '1 server.start',
      '2 config.update',
      '3 server.start',
    ]);
    expect(two.trace.next).toBe(4);
  });

  it('answers read() without blocking, picking up batches written while it reads', async () => {
    const j = make({ segmentBytes: 2000 });
    await j.open();
    for (let s = 1; s <= 200; s++) j.append(ev(s));
    await j.flush();
    for (let s = 201; s <= 210; s++) j.append(ev(s)); // queued
    expect(seqs(await j.read(0))).toEqual(range(1, 210));
    expect(seqs(await j.read(33, 4))).toEqual([34, 35, 36, 37]);
    expect(seqs(await j.read(0, 5, (e) => e.seq % 50 === 0))).toEqual([50, 100, 150, 200]);
    expect(seqs(await j.read(190, 100, undefined, 195))).toEqual([191, 192, 193, 194]);

    // writes land while the read awaits the disk: nothing is skipped, nothing doubled
    const reading = await j.read(0);
    for (let s = 211; s <= 400; s++) {
      j.append(ev(s));
      if (s % 20 === 0) void j.flush();
    }
    const got = seqs(await reading);
    expect(got.length).toBeGreaterThanOrEqual(210);
    expect(got).toEqual(range(1, got.length));
    expect(seqs(await j.read(0))).toEqual(range(1, 400));
  });

  describe('damage found at open', () => {
    const damaged = () => (existsSync(join(dir, 'damaged')) ? readdirSync(join(dir, 'damaged')).sort() : []);
    async function threeSegments(): Promise<string[]> {
      const j = make({ segmentBytes: 1000 });
      await j.open();
      for (let s = 1; s <= 30; s++) j.append(ev(s));
      await j.close();
      const files = segmentFiles();
      expect(files.length).toBeGreaterThanOrEqual(3);
      return files;
    }

    it('moves a segment that cannot be read into damaged/, names it, and serves the rest', async () => {
      const files = await threeSegments();
      // a directory named like a segment, between the first and the second (EISDIR when read)
      const second = parseSegmentName(files[1] as string) as number;
      const bogus = join(dir, `trace-${String(second - 1).padStart(16, '0')}.ndjson`);
      mkdirSync(bogus);
      writeFileSync(join(bogus, 'inside'), 'kept');

      const again = make({ segmentBytes: 1000 });
      expect(await again.open()).toEqual({ lastSeq: 30, events: 30 });
      expect(seqs(await again.read(0))).toEqual(range(1, 30));
      expect(existsSync(bogus)).toBe(false);
      const [moved] = damaged();
      expect(moved).toMatch(/^trace-\d{16}\.ndjson\.\d{4}-\d\d-\d\dT/);
      expect(readFileSync(join(dir, 'damaged', moved as string, 'inside'), 'utf8')).toBe('kept');
      expect(warnings).toEqual([expect.stringContaining(`${bogus} cannot be read (EISDIR`)]);
      expect(warnings[0]).toContain(join(dir, 'damaged', moved as string));
    });

    it('counts bad records between good ones with file and byte offset, and keeps serving around them', async () => {
      const files = await threeSegments();
      const older = join(dir, files[0] as string);
      const newest = join(dir, files.at(-1) as string);
      const insertGarbage = (path: string, afterLines: number, garbage: string[]) => {
        const lines = readFileSync(path, 'utf8').split('\n');
        const offset = Buffer.byteLength(lines.slice(0, afterLines).join('\n')) + 1;
        lines.splice(afterLines, 0, ...garbage);
        writeFileSync(path, lines.join('\n'));
        return offset;
      };
      const at = insertGarbage(older, 2, ['{"seq":garbage}', '\0\0\0\0']);
      const atNewest = insertGarbage(newest, 1, ['not json at all']);

      const again = make({ segmentBytes: 1000 });
      expect(await again.open()).toEqual({ lastSeq: 30, events: 30 });
      expect(again.badRecords).toBe(3);
      expect(warnings).toHaveLength(2);
      expect(warnings).toContain(`trace journal: ${older}: 2 bad records skipped, at byte ${at}, ${at + 16}`);
      expect(warnings).toContain(`trace journal: ${newest}: 1 bad record skipped, at byte ${atNewest}`);
      expect(seqs(await again.read(0))).toEqual(range(1, 30));
      expect(seqs(await again.tail(100))).toEqual(range(1, 30));
      expect(damaged()).toEqual([]);
    });

    it('copies a damaged tail into damaged/ before cutting it', async () => {
      const files = await threeSegments();
      const newest = join(dir, files.at(-1) as string);
      const good = readFileSync(newest);
      const tail = '{"seq":31,"time":1031,"ty\0\0\0\nXXXX';
      appendFileSync(newest, tail);

      const again = make({ segmentBytes: 1000 });
      expect(await again.open()).toEqual({ lastSeq: 30, events: 30 });
      expect(readFileSync(newest)).toEqual(good);
      const [copy] = damaged();
      expect(copy).toMatch(new RegExp(`^${files.at(-1)}\\..*\\.tail$`));
      expect(readFileSync(join(dir, 'damaged', copy as string), 'utf8')).toBe(tail);
      expect(warnings).toEqual([
        `trace journal: ${newest}: cut ${Buffer.byteLength(tail)} bytes after the last whole event at byte ` +
          `${good.length}; a copy is in ${join(dir, 'damaged', copy as string)}`,
      ]);
    });
  });
});
