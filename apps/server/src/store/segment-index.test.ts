import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceJournal, type TraceJournalOptions } from './journal.ts';
import { encodeEvent, parseSegmentName } from './segment.ts';
import { indexRun, indexRunSliced, podFilter, type SegmentIndex } from './segment-index.ts';
import { Collector, decodeSliced } from './segment-read.ts';
import { podEvent, startEvent } from './test-events.ts';

const seqs = (evs: TraceEvent[]) => evs.map((e) => e.seq);

describe('TraceJournal segment index', () => {
  let dir: string;
  const journals: TraceJournal[] = [];
  const make = (opts: Partial<TraceJournalOptions> = {}) => {
    const j = new TraceJournal({ dir, warn: () => {}, ...opts });
    journals.push(j);
    return j;
  };
  /** Segment files, oldest first, with the events each holds. */
  const segments = () =>
    readdirSync(dir)
      .filter((n) => parseSegmentName(n) !== undefined)
      .sort()
      .map((name) => ({
        path: join(dir, name),
        events: readFileSync(join(dir, name), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as TraceEvent),
      }));
  /**
   * Rewrites a segment that holds only uid-a's events with one line naming uid-b at a seq in its range: a
   * read that opens the segment finds it, a read the index lets skip the segment does not.
   */
  const plantB = () => {
    const seg = segments().find(
      (s) => s.events.length > 2 && s.events.every((e) => 'podUID' in e && e.podUID === 'uid-a'),
    );
    if (!seg) throw new Error('no segment with only uid-a');
    const at = (seg.events[1] as TraceEvent).seq;
    const lines = seg.events.map((e) => encodeEvent(e.seq === at ? podEvent(at, 'uid-b') : e));
    writeFileSync(seg.path, lines.join(''));
    return at;
  };

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'syncscope-index-')), 'trace');
  });
  afterEach(async () => {
    for (const j of journals.splice(0)) await j.close();
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  /** uid-a throughout, uid-b in seqs 21..25 and 81..85, a server.start at 50 in a stretch of uid-a only. */
  async function fill(j: TraceJournal): Promise<void> {
    for (let s = 1; s <= 100; s++) {
      j.append(
        s === 50
          ? startEvent(s)
          : podEvent(s, (s >= 21 && s <= 25) || (s >= 81 && s <= 85) ? 'uid-b' : 'uid-a'),
      );
      if (s % 10 === 0) await j.flush();
    }
    await j.flush();
  }
  const bHistory = [21, 22, 23, 24, 25, 50, 81, 82, 83, 84, 85];

  it("reads a pod's history without opening segments that hold neither the pod nor a server.start", async () => {
    const j = make({ segmentBytes: 1500 });
    await j.open();
    await fill(j);
    expect(segments().length).toBeGreaterThan(5);
    expect(seqs(await j.read(0, Number.POSITIVE_INFINITY, podFilter('uid-b')))).toEqual(bHistory);

    const planted = plantB();
    // the planted line is there for a reader that opens the segment...
    expect(seqs(await j.read(planted - 1, 1))).toEqual([planted]);
    expect(((await j.read(planted - 1, 1))[0] as { podUID: string }).podUID).toBe('uid-b');
    // ...and a pod read never opens it: the index says uid-b is not in it
    expect(seqs(await j.read(0, Number.POSITIVE_INFINITY, podFilter('uid-b')))).toEqual(bHistory);
    expect(seqs(await j.read(0, Number.POSITIVE_INFINITY, podFilter('uid-b')))).toEqual(bHistory);
    // pages cut by limit and bounded by before go on where the last one stopped
    expect(seqs(await j.read(0, 3, podFilter('uid-b')))).toEqual([21, 22, 23]);
    expect(seqs(await j.read(23, 3, podFilter('uid-b')))).toEqual([24, 25, 50]);
    expect(seqs(await j.read(50, 100, podFilter('uid-b'), 83))).toEqual([81, 82]);
    expect(seqs(await j.read(0, 100, podFilter('uid-none')))).toEqual([50]);
  });

  it('builds the index again at open from what the files hold after recovery, a cut torn tail included', async () => {
    const first = make({ segmentBytes: 1500 });
    await first.open();
    await fill(first);
    await first.close();
    // a crash mid-write left part of a uid-c line at the end of the newest segment
    const newest = segments().at(-1)?.path as string;
    appendFileSync(newest, encodeEvent(podEvent(101, 'uid-c')).slice(0, 40));

    const j = make({ segmentBytes: 1500 });
    expect((await j.open()).lastSeq).toBe(100);
    // right before the older segments are indexed (they are read), and after
    expect(seqs(await j.read(0, 100, podFilter('uid-b')))).toEqual(bHistory);
    await j.whenIndexed();
    expect(seqs(await j.read(0, 100, podFilter('uid-c')))).toEqual([50]);
    expect(seqs(await j.read(0, 100, podFilter('uid-b')))).toEqual(bHistory);
    plantB();
    expect(seqs(await j.read(0, 100, podFilter('uid-b')))).toEqual(bHistory);

    // appended after open: indexed as it is written, found in the newest segment and the next ones
    for (let s = 101; s <= 140; s++) j.append(podEvent(s, s % 2 ? 'uid-c' : 'uid-a'));
    await j.flush();
    const cs = seqs(await j.read(0, 100, podFilter('uid-c')));
    expect(cs).toEqual([50, ...Array.from({ length: 20 }, (_, i) => 101 + 2 * i)]);
  });

  it('decodes a large segment in slices: the event loop turns while one read or export runs', async () => {
    const j = make();
    await j.open();
    const n = 60_000;
    for (let s = 1; s <= n; s++) j.append(podEvent(s, `uid-${s % 50}`));
    await j.flush();
    // Whether the loop gets a turn while the work is under way: a callback queued just after the work started
    // runs before it ends. Decoding 60 000 lines takes 100-400 ms of CPU: in one go, nothing else would run
    // meanwhile. (How long each turn waits under load is bench P11's to measure, not a test's: a collection on
    // the loop's thread alone can take tens of ms.) The work is taken after its file is read, so the turns
    // the read's own I/O gives do not count.
    const turnsDuring = async (work: () => Promise<unknown>) => {
      let done = false;
      let turned = false;
      const running = work();
      setImmediate(() => {
        turned = !done;
      });
      await running;
      done = true;
      return turned;
    };
    const bufs = segments().map((seg) => readFileSync(seg.path));
    let decoded = 0;
    expect(
      await turnsDuring(async () => {
        for (const buf of bufs) decoded += (await decodeSliced(buf, 0)).length;
      }),
    ).toBe(true);
    expect(decoded).toBe(n);
    const collector = new Collector(0, Number.MAX_SAFE_INTEGER, undefined, Number.POSITIVE_INFINITY);
    expect(
      await turnsDuring(async () => {
        for (const buf of bufs) {
          collector.startSegment();
          await collector.addRun(buf);
        }
      }),
    ).toBe(true);
    expect(collector.out).toHaveLength(n);
    // the export hands the events out in microtasks: it gives the loop turns too
    let exported = 0;
    let atFirstTurn = 0;
    for await (const _ of j.events(0)) {
      if (++exported === 1) setImmediate(() => (atFirstTurn = exported));
    }
    expect(exported).toBe(n);
    expect(atFirstTurn).toBeGreaterThan(0);
    expect(atFirstTurn).toBeLessThan(n);
    expect(await j.read(0)).toHaveLength(n);
  });

  it('indexes every pod of a segment in slices as in one pass: long lines, escaped and non-ASCII UIDs', async () => {
    const lines: string[] = [];
    const want = new Set<string>();
    for (let seq = 1; seq <= 20_000; seq++) {
      const uid = seq === 7_000 ? 'uid-"quoted"-é' : seq === 9_000 ? 'uid-ü' : `uid-${seq % 300}`;
      want.add(uid);
      lines.push(encodeEvent(podEvent(seq, uid)));
      if (seq === 5_000) {
        // one line longer than a slice's piece (128 KiB)
        seq++;
        lines.push(
          encodeEvent({
            seq,
            time: 1,
            type: 'config.update',
            op: 'ADD',
            source: 'api',
            podUID: 'uid-long',
            pod: 'x'.repeat(300_000),
          }),
        );
        want.add('uid-long');
      }
    }
    lines.push(encodeEvent(startEvent(30_000)));
    const buf = Buffer.from(lines.join(''));
    const sliced: SegmentIndex = { lastSeq: 30_000, pods: new Set(), starts: 0 };
    await indexRunSliced(sliced, buf);
    expect(sliced.pods).toEqual(want);
    expect(sliced.starts).toBe(1);
    const whole: SegmentIndex = { lastSeq: 30_000, pods: new Set(), starts: 0 };
    indexRun(whole, buf);
    expect(whole).toEqual(sliced);
  });
});
