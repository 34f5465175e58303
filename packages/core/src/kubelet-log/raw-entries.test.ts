/**
 * The unread entries kept without their text: read back from the log's own lines, each is what its log.raw event
 * was (node, line, time, level, source, pod, message), on the five real logs and on CRLF, multi-byte UTF-8 and
 * multi-line input, while the trace holds trace events only, the same ones in the same order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { type ImportSummary, KubeletLogParser } from './parser.ts';
import { entryText, RawEntries, type RawEntry, rawEventOf } from './raw-entries.ts';
import { OffsetResolver, RawIndex, type RawRange, rangeLines } from './raw-index.ts';
import { k } from './test-lines.ts';

interface Parsed {
  events: TraceEvent[];
  summary: ImportSummary;
}

function parse(text: string, entries?: RawEntries): Parsed {
  const events: TraceEvent[] = [];
  const p = new KubeletLogParser({
    year: 2024,
    onEvent: (ev) => events.push(ev),
    ...(entries ? { rawEntries: entries } : {}),
  });
  p.feed(text);
  return { events, summary: p.end() };
}

/** a log.raw event's fields as the views read them */
const viewOf = (e: TraceOf<'log.raw'>) => ({
  node: e.node,
  line: e.origin?.line,
  time: e.time,
  level: e.level,
  source: e.source,
  pod: e.pod,
  podUID: e.podUID,
  text: e.text,
});

/** an entry's fields, its text read back from line `line` of the log as given */
const readBack = (e: RawEntry, lines: readonly string[]) => ({
  node: e.node,
  line: e.line,
  time: e.time,
  level: e.level,
  source: e.source,
  pod: e.pod,
  podUID: e.podUID,
  text: entryText(e, (lines[e.line - 1] ?? '').replace(/\r$/, '')),
});

/** both ways of reading `text`: every log.raw event, read back from the entries; the other events the same */
function same(text: string): { entries: RawEntries; index: RawIndex; raws: number } {
  const old = parse(text);
  const index = new RawIndex();
  const entries = new RawEntries(index);
  const now = parse(text, entries);
  const raws = old.events.filter((e): e is TraceOf<'log.raw'> => e.type === 'log.raw');
  expect(now.events.map((e) => e.type)).not.toContain('log.raw');
  const strip = (e: TraceEvent) => ({ ...e, seq: 0 });
  expect(now.events.map(strip)).toEqual(old.events.filter((e) => e.type !== 'log.raw').map(strip));
  expect(now.summary).toEqual({ ...old.summary, events: old.summary.events - raws.length });
  const lines = text.split('\n');
  const byLine = [...raws].sort((a, b) => (a.origin?.line ?? 0) - (b.origin?.line ?? 0));
  expect([...entries.entries()].map((e) => readBack(e, lines))).toEqual(byLine.map(viewOf));
  // each entry put back in its place among the events: the importer's stream, byte for byte
  const merged: TraceEvent[] = [];
  const put = (e: RawEntry) =>
    merged.push(rawEventOf(e, readBack(e, lines).text as string, merged.length + 1));
  let r = 0;
  for (const ev of now.events) {
    for (; r < entries.size && entries.at(r).after < ev.seq; r++) put(entries.at(r));
    merged.push({ ...ev, seq: merged.length + 1 });
  }
  for (; r < entries.size; r++) put(entries.at(r));
  expect(merged.map((e) => JSON.stringify(e))).toEqual(old.events.map((e) => JSON.stringify(e)));
  return { entries, index, raws: raws.length };
}

const dir = join(import.meta.dirname, 'testdata');

describe('unread entries kept without their text', () => {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')))
    it(`read back, are the log.raw events of ${f}, pods filled in the same`, () => {
      const { raws } = same(readFileSync(join(dir, f), 'utf8'));
      expect(raws).toBeGreaterThan(0);
    });

  const unread = [
    k('"Attempting to sync node with API server" node="n1 é"'),
    k('"Volume detached" volume="→ data" pod="ns1/a"'),
    k('"Some message nobody reads" emoji="😀 ok" cjk="节点"'),
    k('"Probe output" output=<'),
    '\tline one 😀',
    ' >',
  ];
  const read = k('"SyncLoop UPDATE" source="api" pods=["ns1/a"]');
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ] as const)
    it(`read back by byte offsets with their exact message (${name}, multi-byte UTF-8, multi-line)`, () => {
      const text = [read, ...unread, read].join(eol) + eol;
      const { entries, index } = same(text);
      const bytes = new TextEncoder().encode(text);
      const ranges: RawRange[] = [];
      const r = new OffsetResolver(index.ranges(), (x) => ranges.push(x));
      r.feed(bytes);
      r.end();
      // the six unread lines are in the ranges (a line naming a pod joins them after waiting in the window)
      const got = new Map<number, string>();
      for (const x of ranges) {
        const ls = rangeLines(bytes.subarray(x.start, x.end));
        for (let i = 0; i < ls.length; i++) got.set(x.first + i, ls[i] as string);
      }
      expect([...got.keys()].sort()).toEqual([2, 3, 4, 5, 6, 7]);
      const all = [...entries.entries()];
      expect(all.map((e) => [e.line, e.lines, e.pod])).toEqual([
        [2, 1, undefined],
        [3, 1, 'ns1/a'],
        [4, 1, undefined],
        [5, 3, undefined],
      ]);
      expect(all.map((e) => entryText(e, got.get(e.line) as string))).toEqual([
        '"Attempting to sync node with API server" node="n1 é"',
        '"Volume detached" volume="→ data" pod="ns1/a"',
        '"Some message nobody reads" emoji="😀 ok" cjk="节点"',
        '"Probe output" output=<\n\tline one 😀\n >',
      ]);
    });

  it('a line whose tail is not the message gives no text rather than a wrong one', () => {
    const entries = new RawEntries();
    parse(`${k('"Volume detached" pod="ns1/a"')}\n`, entries);
    const [e] = [...entries.entries()];
    expect(
      entryText(e as RawEntry, 'I0601 10:00:01.000000    42 x.go:1] "Volume attached" pod="ns1/a"'),
    ).toBe(undefined);
  });
});
