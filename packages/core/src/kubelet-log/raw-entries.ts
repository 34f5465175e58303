/**
 * The unread entries of a log as the views read them, without their text: for each entry a log.raw event would
 * have been, its node, line span, time, level, source and the pod it names (filled in from the node's register
 * exactly as a log.raw event is), and its message as a length and a check, read back from the input's line.
 *
 * A message is nearly always the tail of its entry's first line (the line less its header): RawEntries keeps
 * its length in UTF-16 units and an FNV-1a hash of it, and `text(line)` takes that tail of the line as read
 * back and checks it. An entry of several lines keeps its text (their joined message is no line's tail), and a
 * tail that fails the check (a decoration taken off the line after the message) gives undefined: the reader
 * counts it, never shows a wrong text. Memory: 48 bytes an entry plus the kept texts, strings shared by value.
 * Browser-safe.
 */
import type { TraceOf } from '../events/trace.ts';
import type { RawSink } from './raw-index.ts';

/** One unread entry: what its log.raw event held but the text, which is read back from the input. */
export interface RawEntry {
  node: string;
  /** first line (from 1) and how many lines the entry spans */
  line: number;
  lines: number;
  time: number;
  level: string;
  source: string;
  pod?: string;
  podUID?: string;
  /** the message's length, UTF-16 units */
  length: number;
  /** FNV-1a of the message's UTF-16 units */
  hash: number;
  /** how many trace events came before it in the log's events (its place among them) */
  after: number;
  /** the message itself, kept when it is not the tail of one line */
  text?: string;
}

/** The fields of an unread entry the Interpreter hands on (its text still whole). */
export interface RawFields {
  node: string;
  line: number;
  lines: number;
  time: number;
  level: string;
  source: string;
  pod?: string | undefined;
  podUID?: string | undefined;
  text: string;
  after: number;
}

/**
 * A RawSink that takes each unread entry's fields instead of its line range: the Interpreter calls `entry` as
 * the entry leaves the reorder window (where its log.raw event would have left), its pod filled in.
 */
export interface RawEntrySink {
  entry(f: RawFields): void;
}

/**
 * An unread entry bound for an entry sink while it waits in the reorder window where its log.raw event would
 * wait (Interpreter): the fields the sink gets, made once; `after` and the pod are filled in as it leaves.
 */
export class PendingRaw implements RawFields {
  after = 0;
  constructor(
    readonly node: string,
    readonly line: number,
    readonly lines: number,
    readonly time: number,
    readonly level: string,
    readonly source: string,
    readonly text: string,
    public pod: string | undefined,
    public podUID: string | undefined,
  ) {}
}

/** The log.raw event an entry was, its text given and numbered `seq`. */
export function rawEventOf(e: RawEntry, text: string, seq: number): TraceOf<'log.raw'> {
  const [time, node, origin] = [e.time, e.node, { line: e.line }];
  const { level, source } = e;
  // the field order of the event the importer makes (entry.ts rawEvent)
  if (e.pod === undefined && e.podUID === undefined)
    return { type: 'log.raw', text, level, source, seq, time, node, origin };
  const ev = { type: 'log.raw', text, level, source, pod: e.pod, podUID: e.podUID, seq, time, node, origin };
  if (e.pod === undefined) delete ev.pod;
  if (e.podUID === undefined) delete ev.podUID;
  return ev as TraceOf<'log.raw'>;
}

/** FNV-1a over UTF-16 code units, of s[from..s.length). */
function messageHash(s: string, from = 0): number {
  // kept a 32-bit integer throughout (the offset basis as a signed one): no number conversions in the loop
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The entry of an unread entry's fields, on its own (RawEntries keeps many in less memory). */
export function rawEntryOf(f: RawFields): RawEntry {
  const { node, line, lines, time, level, source, after } = f;
  const e: RawEntry = {
    node,
    line,
    lines,
    time,
    level,
    source,
    length: f.text.length,
    hash: messageHash(f.text),
    after,
  };
  if (f.pod !== undefined) e.pod = f.pod;
  if (f.podUID !== undefined) e.podUID = f.podUID;
  if (lines > 1) e.text = f.text;
  return e;
}

const GROW = 1024;

/** Every unread entry of a log, in the order handed in; `sink` (a RawIndex) also gets each entry's range. */
export class RawEntries implements RawEntrySink {
  private line = new Uint32Array(GROW);
  private span = new Uint32Array(GROW);
  private len = new Uint32Array(GROW);
  private sum = new Uint32Array(GROW);
  private before = new Uint32Array(GROW);
  private ids = new Uint32Array(GROW * 5);
  private time = new Float64Array(GROW);
  private n = 0;
  /** strings by id (0: none, so a pod named '' is an id of its own) and ids by string */
  private readonly strings: string[] = [''];
  private readonly idOf = new Map<string, number>();
  private readonly kept = new Map<number, string>();
  /** per field (node, level, source, pod, podUID) the last value and its id */
  private readonly lastValue: (string | undefined)[] = [];
  private readonly lastId = new Uint32Array(5);

  constructor(private readonly sink?: RawSink) {}

  get size(): number {
    return this.n;
  }

  entry(f: RawFields): void {
    this.sink?.add(f.node, f.line, f.line + f.lines - 1);
    if (this.n === this.line.length) this.grow();
    const i = this.n++;
    this.line[i] = f.line;
    this.span[i] = f.lines;
    this.time[i] = f.time;
    this.len[i] = f.text.length;
    this.sum[i] = messageHash(f.text);
    this.before[i] = f.after;
    const at = i * 5;
    this.ids[at] = this.idAt(0, f.node);
    this.ids[at + 1] = this.idAt(1, f.level);
    this.ids[at + 2] = this.idAt(2, f.source);
    this.ids[at + 3] = f.pod === undefined ? 0 : this.idAt(3, f.pod);
    this.ids[at + 4] = f.podUID === undefined ? 0 : this.idAt(4, f.podUID);
    if (f.lines > 1) this.kept.set(i, f.text);
  }

  /** The i-th entry handed in (entries are handed in in the order of the log's events: `after` grows). */
  at(i: number): RawEntry {
    const at = i * 5;
    const s = this.strings;
    const e: RawEntry = {
      node: s[this.ids[at] as number] as string,
      line: this.line[i] as number,
      lines: this.span[i] as number,
      time: this.time[i] as number,
      level: s[this.ids[at + 1] as number] as string,
      source: s[this.ids[at + 2] as number] as string,
      length: this.len[i] as number,
      hash: this.sum[i] as number,
      after: this.before[i] as number,
    };
    const pod = this.ids[at + 3] as number;
    const uid = this.ids[at + 4] as number;
    if (pod !== 0) e.pod = s[pod] as string;
    if (uid !== 0) e.podUID = s[uid] as string;
    const text = this.kept.get(i);
    if (text !== undefined) e.text = text;
    return e;
  }

  /** The entries' numbers (as `at` takes them) in line order. */
  lineOrder(): Uint32Array {
    const order = new Uint32Array(this.n);
    for (let i = 0; i < this.n; i++) order[i] = i;
    return order.sort((a, b) => (this.line[a] as number) - (this.line[b] as number));
  }

  /** Every entry, in line order. */
  *entries(): Generator<RawEntry> {
    for (const i of this.lineOrder()) yield this.at(i);
  }

  /** the id of field k's value: the last one's again when it is the same (entries in a row mostly share them) */
  private idAt(k: number, v: string): number {
    if (v === this.lastValue[k]) return this.lastId[k] as number;
    const id = this.id(v);
    this.lastValue[k] = v;
    this.lastId[k] = id;
    return id;
  }

  private id(v: string): number {
    let id = this.idOf.get(v);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(v);
      this.idOf.set(v, id);
    }
    return id;
  }

  private grow(): void {
    const g = <T extends Uint32Array | Float64Array>(a: T, k = 2): T => {
      const b = new (a.constructor as new (n: number) => T)(a.length * k);
      b.set(a);
      return b;
    };
    this.line = g(this.line);
    this.span = g(this.span);
    this.len = g(this.len);
    this.sum = g(this.sum);
    this.before = g(this.before);
    this.time = g(this.time);
    this.ids = g(this.ids);
  }
}

/**
 * An entry's message from its first line as read back (without its line end): the kept text, else the line's
 * tail of the entry's length when its hash agrees, else undefined.
 */
export function entryText(e: RawEntry, firstLine: string): string | undefined {
  if (e.text !== undefined) return e.text;
  const from = firstLine.length - e.length;
  if (from < 0 || messageHash(firstLine, from) !== e.hash) return undefined;
  return firstLine.slice(from);
}
