/**
 * The raw-line index: the lines no family read leave no trace event; they are ranges of line numbers, and the
 * bytes of the input at a range's offsets are those lines exactly (LF or CRLF, multi-byte UTF-8, blocks cut
 * inside a character).
 */
import { describe, expect, it } from 'vitest';
import { KubeletLogParser } from './parser.ts';
import { OffsetResolver, RawIndex, type RawRange, rangeLines } from './raw-index.ts';
import { k } from './test-lines.ts';

/** imports `text` with a raw-line index, resolving its offsets from the UTF-8 bytes fed `block` bytes at a time */
function indexed(text: string, block: number): { types: string[]; ranges: RawRange[]; bytes: Uint8Array } {
  const types: string[] = [];
  const index = new RawIndex();
  const p = new KubeletLogParser({ onEvent: (ev) => types.push(ev.type), year: 2024, rawIndex: index });
  p.feed(text);
  const summary = p.end();
  const ranges: RawRange[] = [];
  const bytes = new TextEncoder().encode(text);
  const r = new OffsetResolver(index.ranges(), (x) => ranges.push(x));
  for (let at = 0; at < bytes.length; at += block) r.feed(bytes.subarray(at, at + block));
  r.end();
  expect(summary.raw).toBe(ranges.reduce((n, x) => n + x.last - x.first + 1, 0));
  return { types, ranges, bytes };
}

const textOf = (bytes: Uint8Array, r: RawRange) => rangeLines(bytes.subarray(r.start, r.end));

const read = k('"SyncLoop UPDATE" source="api" pods=["ns1/a"]');
const unread = [
  k('"Attempting to sync node with API server" node="n1 é"'),
  k('"Volume detached" volume="→ data" pod="ns1/a"'),
  k('"Some message nobody reads" emoji="😀 ok" cjk="节点"'),
];
const later = k('"Another unread line" x=1');
const last = k('"SyncLoop DELETE" source="api" pods=["ns1/a"]');

describe('raw-line index', () => {
  for (const [name, eol] of [
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ] as const) {
    it(`an unread line is found by its offsets with its exact text (${name}, multi-byte UTF-8)`, () => {
      const text = [read, ...unread, read, later, last].join(eol) + eol;
      for (const block of [3, 7, 1 << 16]) {
        const { types, ranges, bytes } = indexed(text, block);
        expect(types).not.toContain('log.raw');
        expect(types).toContain('config.update');
        // three consecutive unread lines are one range, the lone one another
        expect(ranges.map(({ node, first, last }) => ({ node, first, last }))).toEqual([
          { node: 'pid 42', first: 2, last: 4 },
          { node: 'pid 42', first: 6, last: 6 },
        ]);
        expect(textOf(bytes, ranges[0] as RawRange)).toEqual(unread);
        expect(textOf(bytes, ranges[1] as RawRange)).toEqual([later]);
      }
    });
  }

  it('a range that ends the input without a newline ends at the input end', () => {
    const text = [read, ...unread].join('\r\n');
    const { ranges, bytes } = indexed(text, 5);
    expect(ranges).toEqual([
      { node: 'pid 42', first: 2, last: 4, start: read.length + 2, end: bytes.length },
    ]);
    expect(textOf(bytes, ranges[0] as RawRange)).toEqual(unread);
  });

  it('ranges added out of line order come out in line order, and a range continued later is merged', () => {
    const index = new RawIndex();
    index.add('n1', 10, 10);
    index.add('n2', 3, 4);
    index.add('n1', 11, 12);
    index.add('n1', 1, 1);
    expect([...index.ranges()]).toEqual([
      { node: 'n1', first: 1, last: 1 },
      { node: 'n2', first: 3, last: 4 },
      { node: 'n1', first: 10, last: 12 },
    ]);
  });

  it('hands on the ranges the bytes never reach without offsets, and a cut input leaves the last range open', () => {
    const index = new RawIndex();
    index.add('n', 2, 3);
    index.add('n', 9, 9);
    const done: RawRange[] = [];
    const r = new OffsetResolver(index.ranges(), (x) => done.push(x));
    r.feed(new TextEncoder().encode('a\nbb\ncc'));
    r.end(false);
    expect(done).toEqual([
      { node: 'n', first: 2, last: 3, start: 2 },
      { node: 'n', first: 9, last: 9 },
    ]);
  });

  it('merges a run read backwards (newest-first input) into one range', () => {
    const index = new RawIndex();
    for (let no = 20; no >= 11; no--) index.add('n', no, no);
    index.add('n', 5, 8);
    expect([...index.ranges()]).toEqual([
      { node: 'n', first: 5, last: 8 },
      { node: 'n', first: 11, last: 20 },
    ]);
  });

  it('holds many ranges', () => {
    const index = new RawIndex();
    for (let i = 1; i <= 5000; i++) index.add('n', 2 * i, 2 * i);
    expect(index.size).toBe(5000);
    expect([...index.ranges()].at(-1)).toEqual({ node: 'n', first: 10_000, last: 10_000 });
  });
});
