/**
 * The raw-line record, the one shape every reader of a log keeps its unread entries in (the server's
 * `raw.ndjson`, the import command's `--raw-index`, the dashboard's parse worker): an entry made alone from its
 * fields is the one RawEntries keeps; a record's line reads back to the same entry and offsets; offsets taken
 * from each line's start as the lines are read (the dashboard's worker) are those of one pass over the bytes
 * afterwards (OffsetResolver, the server's writer); a record's message is read back from its first line's bytes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeletLogParser } from './parser.ts';
import { RawEntries, type RawEntry, type RawFields, rawEntryOf } from './raw-entries.ts';
import { OffsetResolver } from './raw-index.ts';
import {
  jsonBytes,
  type RawRecord,
  RecordWriter,
  rawRecordLine,
  readRawRecord,
  readRawRecords,
  recordText,
} from './raw-record.ts';
import { k } from './test-lines.ts';

/** the entries of `text` as RawEntries keeps them, and as rawEntryOf makes them one by one */
function entriesOf(text: string): { kept: RawEntries; alone: RawEntry[] } {
  const kept = new RawEntries();
  const alone: RawEntry[] = [];
  const p = new KubeletLogParser({
    year: 2024,
    onEvent: () => undefined,
    rawEntries: {
      entry(f: RawFields) {
        kept.entry(f);
        alone.push(rawEntryOf(f));
      },
    },
  });
  p.feed(text);
  p.end();
  return { kept, alone };
}

/** the records with offsets from one pass over the bytes, in the entries' order (as the server writes them) */
function resolved(kept: RawEntries, bytes: Uint8Array): RawRecord[] {
  const order = kept.lineOrder();
  const out: RawRecord[] = [];
  let k = 0;
  const r = new OffsetResolver(
    [...order].map((i) => ({ node: '', first: kept.at(i).line, last: kept.at(i).line })),
    (x) => {
      const i = order[k++] as number;
      out[i] = { entry: kept.at(i), start: x.start ?? -1, end: x.end ?? -1 };
    },
  );
  r.feed(bytes);
  r.end();
  return out;
}

/** the records with offsets from each line's start, known as the lines are read (the dashboard's worker) */
function fromLineStarts(alone: RawEntry[], bytes: Uint8Array): RawRecord[] {
  const starts = [0];
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) starts.push(i + 1);
  return alone.map((entry) => ({
    entry,
    start: starts[entry.line - 1] ?? -1,
    end: starts[entry.line] ?? bytes.length,
  }));
}

const dir = join(import.meta.dirname, 'testdata');
const logs = readdirSync(dir).filter((n) => n.endsWith('.log'));

describe('the raw-line record', () => {
  for (const f of logs)
    it(`is the same from every reader, and reads back to itself (${f})`, () => {
      const text = readFileSync(join(dir, f), 'utf8');
      const bytes = new TextEncoder().encode(text);
      const { kept, alone } = entriesOf(text);
      expect(kept.size).toBeGreaterThan(0);
      expect(alone).toEqual(Array.from({ length: kept.size }, (_, i) => kept.at(i)));
      const server = resolved(kept, bytes);
      const worker = fromLineStarts(alone, bytes);
      const ndjson = (rs: RawRecord[]) => rs.map((r) => rawRecordLine(r.entry, r.start, r.end)).join('');
      expect(ndjson(worker)).toBe(ndjson(server));
      expect(readRawRecords(ndjson(server))).toEqual(server);
      // every message read back from its first line's bytes is the line's tail the parser read
      const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
      for (const r of server) {
        const line = lines[r.entry.line - 1] as string;
        const got = recordText(r, bytes.subarray(r.start, r.end));
        if (r.entry.text !== undefined) expect(got).toBe(r.entry.text);
        else expect([line.endsWith(got), got.length]).toEqual([true, r.entry.length]);
      }
    });

  it('is written as bytes (RecordWriter) exactly as its line is', () => {
    /** the records' bytes from RecordWriter, in blocks of `size` */
    const written = (write: (w: RecordWriter) => void, size?: number) => {
      const parts: Uint8Array[] = [];
      const w = new RecordWriter((b) => parts.push(b.slice()), size);
      write(w);
      w.end();
      return new TextDecoder().decode(Buffer.concat(parts));
    };
    for (const f of logs) {
      const text = readFileSync(join(dir, f), 'utf8');
      const { kept } = entriesOf(text);
      const server = resolved(kept, new TextEncoder().encode(text));
      const want = server.map((r) => rawRecordLine(r.entry, r.start, r.end)).join('');
      const j = jsonBytes;
      const all = (w: RecordWriter) => {
        for (const { entry: e, start, end } of server)
          w.record(e, j(e.node), j(e.level), j(e.source), j(e.pod), j(e.podUID), start, end, e.text);
      };
      expect(written(all)).toBe(want);
      expect(written(all, 64)).toBe(want);
    }
    // numbers on every edge of the writer's own digits: whole ones, stamps with up to three decimals and more
    const times: number[] = [
      0,
      1,
      9,
      10,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32,
      2 ** 53 - 1,
      2 ** 53,
      -1,
      0.5,
      1e21,
      1e-7,
    ];
    for (let i = 0; i < 20000; i++) {
      const ms = Math.floor(2 ** 30 + Math.random() * (2 ** 44 - 2 ** 30));
      times.push(
        ms + Math.floor(Math.random() * 1000) / 1000,
        ms + Math.floor(Math.random() * 1e6) / 1e6,
        ms / 7,
      );
    }
    for (const t of [1704067201641.606, 1747025897258.047, 1e12 + 0.1, 2 ** 43 - 0.001, 2 ** 43 + 0.001])
      times.push(t);
    const entry: RawEntry = {
      node: 'nœud "a"',
      line: 12,
      lines: 2,
      time: 0,
      level: 'I',
      source: 'a.go:1',
      pod: 'ns/p',
      length: 3,
      hash: 4294967295,
      after: 0,
      text: 'two\nlines → 😀',
    };
    const j = jsonBytes;
    const lines = times.map((time, i) => ({ ...entry, time, after: i }));
    expect(
      written((w) => {
        for (const e of lines)
          w.record(e, j(e.node), j(e.level), j(e.source), j(e.pod), j(undefined), e.after, -1, e.text);
      }, 256),
    ).toBe(lines.map((e) => rawRecordLine(e, e.after, -1)).join(''));
  });

  it('reads a message back from CRLF, multi-byte and byte-order-marked lines; a failed check gives the line', () => {
    const attached = k('"Volume attached" pod="ns1/a"');
    const text = `${[
      k('"Unread" node="nœud-é" arrow="→" emoji="😀"'),
      k('"SyncLoop UPDATE" source="api" pods=["ns1/a"]'),
      k('"Marked" x="\ufeff"'),
      k('"Volume detached" pod="ns1/a"'),
    ].join('\r\n')}\r\n`;
    // a decoder drops the mark that starts the input; the offsets count its bytes, a line's bytes keep it
    const bytes = new TextEncoder().encode(`\ufeff${text}`);
    const { kept } = entriesOf(text);
    const rs = resolved(kept, bytes);
    expect(rs.map((r) => [r.entry.line, r.start])).toEqual([
      [1, 0],
      [3, bytes.indexOf(10, bytes.indexOf(10) + 1) + 1],
      [4, bytes.lastIndexOf(10, bytes.length - 2) + 1],
    ]);
    expect(rs.map((r) => recordText(r, bytes.subarray(r.start, r.end)))).toEqual([
      '"Unread" node="nœud-é" arrow="→" emoji="😀"',
      '"Marked" x="\ufeff"',
      '"Volume detached" pod="ns1/a"',
    ]);
    const other = new TextEncoder().encode(`${attached}\r\n`);
    expect(recordText(rs[2] as RawRecord, other)).toBe(attached);
    expect(recordText(rs[2] as RawRecord, undefined)).toBe('');
    const line = rawRecordLine(rs[2]?.entry as RawEntry, -1, -1);
    expect(line.endsWith('\n')).toBe(true);
    expect(readRawRecord(line.slice(0, -1))).toEqual({ entry: rs[2]?.entry, start: -1, end: -1 });
    expect(rs[2]?.entry.pod).toBe('ns1/a');
  });
});
