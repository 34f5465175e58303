/**
 * The raw-line record: one unread entry (raw-entries.ts) where it is stored or handed on, one JSON array a
 * line, in the order the entries left the parser (their log.raw events' order among the trace's events):
 *
 *   [after, node, line, lines, time, level, source, pod, podUID, length, hash, start, end, text?]
 *
 * `after`: how many trace events come before it; `line`/`lines`: its first line (from 1, counted by LF) and how
 * many lines it spans; pod and podUID null when absent; `length`/`hash`: its message's length in UTF-16 units and
 * FNV-1a check (entryText); `start`/`end`: the byte offsets in the input as read of the entry's first line, its
 * line end included (`end` is the next line's first byte, or the input's end), -1 when the input was not kept
 * that far; `text`: the message itself, only for an entry of several lines. The same record for the server's
 * imports (`raw.ndjson`), the import command's `--raw-index` and the dashboard's parse worker. Browser-safe.
 */
import type { RawEntry } from './raw-entries.ts';
import { entryText } from './raw-entries.ts';

/** One unread entry and the byte offsets of its first line in the input. */
export interface RawRecord {
  entry: RawEntry;
  start: number;
  end: number;
}

type Row = [
  number,
  string,
  number,
  number,
  number,
  string,
  string,
  string | null,
  string | null,
  number,
  number,
  number,
  number,
  string?,
];

/** An entry as its record's line (with its LF). */
export function rawRecordLine(e: RawEntry, start: number, end: number): string {
  const j = JSON.stringify;
  const pod = e.pod === undefined ? 'null' : j(e.pod);
  const uid = e.podUID === undefined ? 'null' : j(e.podUID);
  const text = e.text === undefined ? '' : `,${j(e.text)}`;
  return `[${e.after},${j(e.node)},${e.line},${e.lines},${e.time},${j(e.level)},${j(e.source)},${pod},${uid},${e.length},${e.hash},${start},${end}${text}]\n`;
}

/** A record's line (without its LF) read back; throws on a line that is not JSON. */
export function readRawRecord(line: string): RawRecord {
  const [after, node, first, lines, time, level, source, pod, podUID, length, hash, start, end, text] =
    JSON.parse(line) as Row;
  const entry: RawEntry = { node, line: first, lines, time, level, source, length, hash, after };
  if (pod !== null) entry.pod = pod;
  if (podUID !== null) entry.podUID = podUID;
  if (text !== undefined) entry.text = text;
  return { entry, start, end };
}

/** Every record of NDJSON text (blank lines passed over). */
export function readRawRecords(ndjson: string): RawRecord[] {
  const out: RawRecord[] = [];
  for (let at = 0; at < ndjson.length; ) {
    let nl = ndjson.indexOf('\n', at);
    if (nl < 0) nl = ndjson.length;
    if (nl > at) out.push(readRawRecord(ndjson.slice(at, nl)));
    at = nl + 1;
  }
  return out;
}

// a byte-order mark inside the line is a character of its text, as the importer read it
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A record's message from the bytes input[start..end) of its first line: the kept text, else the line's tail
 * when its check agrees, else the whole line (never a wrong text); '' when the offsets are unknown.
 */
export function recordText(r: RawRecord, firstLine: Uint8Array | undefined): string {
  if (r.entry.text !== undefined) return r.entry.text;
  if (firstLine === undefined) return '';
  let line = decoder.decode(firstLine);
  if (line.endsWith('\n')) line = line.slice(0, -1);
  if (line.endsWith('\r')) line = line.slice(0, -1);
  return entryText(r.entry, line) ?? line;
}
