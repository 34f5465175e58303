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

const utf8 = new TextEncoder();
const LF = 10;
const COMMA = 44;

/**
 * Raw-line records written as UTF-8 straight into one block of bytes, handed to `flush` whenever the next
 * record might not fit and at `end()`: the bytes of rawRecordLine's text, without making that text (the
 * import command's `--raw-index`). The strings come as their JSON's UTF-8 (jsonBytes), made once by the caller.
 */
export class RecordWriter {
  private block: Uint8Array;
  private at = 0;
  private readonly scratch = new Uint8Array(16);

  constructor(
    private readonly flush: (bytes: Uint8Array) => void,
    size = 1 << 20,
  ) {
    this.block = new Uint8Array(size);
  }

  /**
   * One record: `n` its numbers, `node`…`uid` the JSON of its strings (`null` for none), `text` the entry's
   * own text or undefined.
   */
  record(
    n: Pick<RawEntry, 'after' | 'line' | 'lines' | 'time' | 'length' | 'hash'>,
    node: Uint8Array,
    level: Uint8Array,
    source: Uint8Array,
    pod: Uint8Array,
    uid: Uint8Array,
    start: number,
    end: number,
    text: string | undefined,
  ): void {
    const json = text === undefined ? undefined : utf8.encode(JSON.stringify(text));
    // 13 numbers of at most 24 characters each, 14 separators, the brackets and the LF
    const most = 13 * 24 + 17 + node.length + level.length + source.length + pod.length + uid.length;
    this.room(most + (json?.length ?? 0));
    const b = this.block;
    b[this.at++] = 91;
    this.num(n.after);
    this.bytes(node);
    this.num(n.line);
    this.num(n.lines);
    this.num(n.time);
    this.bytes(level);
    this.bytes(source);
    this.bytes(pod);
    this.bytes(uid);
    this.num(n.length);
    this.num(n.hash);
    this.num(start);
    this.digits(end);
    if (json) {
      b[this.at++] = COMMA;
      b.set(json, this.at);
      this.at += json.length;
    }
    b[this.at++] = 93;
    b[this.at++] = LF;
  }

  /** the records not yet handed to flush */
  end(): void {
    if (this.at > 0) this.flush(this.block.subarray(0, this.at));
    this.at = 0;
  }

  private room(n: number): void {
    if (this.at + n <= this.block.length) return;
    this.end();
    if (n > this.block.length) this.block = new Uint8Array(n);
  }

  /** a number and the comma after it */
  private num(v: number): void {
    this.digits(v);
    this.block[this.at++] = COMMA;
  }

  /** a string's JSON and the comma after it */
  private bytes(j: Uint8Array): void {
    const b = this.block;
    // a short one byte by byte: set() costs more than the copy
    if (j.length < 48) for (let k = 0; k < j.length; k++) b[this.at++] = j[k] as number;
    else {
      b.set(j, this.at);
      this.at += j.length;
    }
    b[this.at++] = COMMA;
  }

  /**
   * A number as JavaScript writes it. Written here, not made as a string: a whole number under 2^53, and a
   * time in ms with up to three decimals (a klog stamp's microseconds) that is the double nearest to those
   * decimals. From 2^30 to 2^43 a double's spacing is under 0.001, so no other number of at most three decimals
   * is nearer to it: those decimals are its shortest form, the one JavaScript writes; checked by adding them back.
   */
  private digits(v: number): void {
    if (v >= 0 && v < 9007199254740992 && v === Math.floor(v)) {
      this.whole(v);
      return;
    }
    if (v >= 1073741824 && v < 8796093022208) {
      const whole = Math.floor(v);
      const ms = Math.round((v - whole) * 1000);
      if (ms > 0 && ms < 1000 && whole + ms / 1000 === v) {
        this.whole(whole);
        const b = this.block;
        b[this.at++] = 46;
        b[this.at++] = 48 + Math.floor(ms / 100);
        const rest = ms % 100;
        if (rest === 0) return;
        b[this.at++] = 48 + Math.floor(rest / 10);
        if (rest % 10 !== 0) b[this.at++] = 48 + (rest % 10);
        return;
      }
    }
    const s = String(v);
    for (let k = 0; k < s.length; k++) this.block[this.at++] = s.charCodeAt(k);
  }

  /** a whole number from 0 to 2^53, its digits from the last, then in their place */
  private whole(v: number): void {
    let len = 0;
    let x = v;
    while (x >= 2147483648) {
      const q = Math.floor(x / 10);
      this.scratch[len++] = 48 + (x - q * 10);
      x = q;
    }
    let y = x | 0;
    do {
      const q = (y / 10) | 0;
      this.scratch[len++] = 48 + (y - q * 10);
      y = q;
    } while (y > 0);
    const b = this.block;
    while (len > 0) b[this.at++] = this.scratch[--len] as number;
  }
}

/** A string's JSON as UTF-8 ('null' for undefined): what RecordWriter takes. */
export function jsonBytes(s: string | undefined): Uint8Array {
  return utf8.encode(s === undefined ? 'null' : JSON.stringify(s));
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
