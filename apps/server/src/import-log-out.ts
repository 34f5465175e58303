/**
 * The import-log command's NDJSON writer. Events are encoded straight into 1 MiB buffers and the output stream
 * gets one write per full buffer. `push` is called synchronously by the parser for every event and never
 * blocks; the reading loop calls `drain` between input blocks, which waits while the stream has asked to (its
 * write returned false), so at most about one input block's output waits in memory. `end` writes the rest.
 *
 * log.raw events are most of a log. They are written field by field, the text escaped byte by byte into the
 * buffer, so a raw line costs no string of its own: the bytes are those of the field order below with every
 * value as JSON.stringify writes it.
 */
import type { TraceEvent } from '@syncscope/core/trace';

/** output buffer size: one write each */
export const CHUNK = 1 << 20;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

const HEX = '0123456789abcdef';
/** the two-character escapes JSON.stringify uses (by code unit), 0 for none */
const SHORT = new Uint8Array(93);
SHORT[8] = 98; // \b
SHORT[9] = 116; // \t
SHORT[10] = 110; // \n
SHORT[12] = 102; // \f
SHORT[13] = 114; // \r
SHORT[34] = 34; // \"
SHORT[92] = 92; // \\

/**
 * Writes `s` as a JSON string (quotes included) in UTF-8 at b[p], the same bytes as
 * Buffer.from(JSON.stringify(s)): `"` and `\` and control characters escaped, a lone surrogate as \udxxx.
 * The caller makes sure b has s.length * 6 + 2 bytes free. Returns the index after it.
 */
export function writeJsonString(b: Uint8Array, at: number, s: string): number {
  let p = at;
  b[p++] = 34;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 34 && c !== 92) b[p++] = c;
      else if (c < 93 && (SHORT[c] as number) !== 0) {
        b[p++] = 92;
        b[p++] = SHORT[c] as number;
      } else p = unicodeEscape(b, p, c);
    } else if (c < 0x800) {
      b[p++] = 0xc0 | (c >> 6);
      b[p++] = 0x80 | (c & 63);
    } else if (c < 0xd800 || c > 0xdfff) {
      b[p++] = 0xe0 | (c >> 12);
      b[p++] = 0x80 | ((c >> 6) & 63);
      b[p++] = 0x80 | (c & 63);
    } else {
      const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        b[p++] = 0xf0 | (cp >> 18);
        b[p++] = 0x80 | ((cp >> 12) & 63);
        b[p++] = 0x80 | ((cp >> 6) & 63);
        b[p++] = 0x80 | (cp & 63);
        i++;
      } else p = unicodeEscape(b, p, c);
    }
  }
  b[p++] = 34;
  return p;
}

/**
 * Writes the UTF-8 bytes src[start..end) as a JSON string (quotes included) at b[p]: the same bytes as
 * writeJsonString for the well-formed string they encode (only `"`, `\` and control characters are escaped;
 * every other byte, multi-byte characters included, is copied). The caller makes sure b has
 * (end - start) * 6 + 2 bytes free. Returns the index after it.
 */
function writeJsonBytes(b: Uint8Array, at: number, src: Uint8Array, start: number, end: number): number {
  let p = at;
  b[p++] = 34;
  for (let i = start; i < end; i++) {
    const c = src[i] as number;
    if (c >= 0x20 && c !== 34 && c !== 92) b[p++] = c;
    else if (c < 93 && (SHORT[c] as number) !== 0) {
      b[p++] = 92;
      b[p++] = SHORT[c] as number;
    } else p = unicodeEscape(b, p, c);
  }
  b[p++] = 34;
  return p;
}

/** \uXXXX in lower-case hex, as JSON.stringify writes it */
function unicodeEscape(b: Uint8Array, at: number, c: number): number {
  let p = at;
  b[p++] = 92;
  b[p++] = 117;
  for (let shift = 12; shift >= 0; shift -= 4) b[p++] = HEX.charCodeAt((c >> shift) & 15);
  return p;
}

/** a number as JSON: non-negative integers digit by digit, anything else through JSON.stringify */
function writeNumber(b: Uint8Array, at: number, v: number): number {
  if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v))
    return writeAscii(b, at, JSON.stringify(v));
  let len = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) len++;
  let x = v;
  for (let k = at + len - 1; k >= at; k--) {
    b[k] = 48 + (x % 10);
    x = Math.floor(x / 10);
  }
  return at + len;
}

/** an ASCII-only string */
function writeAscii(b: Uint8Array, at: number, s: string): number {
  let p = at;
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  return p;
}

function copy(b: Uint8Array, at: number, src: Uint8Array): number {
  let p = at;
  for (let i = 0; i < src.length; i++) b[p++] = src[i] as number;
  return p;
}

const bytes = (s: string) => new Uint8Array(Buffer.from(s));
const RAW_HEAD = bytes('{"type":"log.raw","text":');
const LEVEL = bytes(',"level":');
const SOURCE = bytes(',"source":');
const POD = bytes(',"pod":');
const POD_UID = bytes(',"podUID":');
const SEQ = bytes(',"seq":');
const TIME = bytes(',"time":');
const NODE = bytes(',"node":');
const ORIGIN = bytes(',"origin":{"line":');
const END = bytes('}}\n');

/** level, source file and node names repeat: each is encoded once (a log has a few thousand at most) */
const quoted = new Map<string, Uint8Array>();
function quote(v: string): Uint8Array {
  let q = quoted.get(v);
  if (q === undefined) {
    q = bytes(JSON.stringify(v));
    if (quoted.size < 65_536) quoted.set(v, q);
  }
  return q;
}

/** one field's last value and its bytes: consecutive lines mostly repeat their level and node */
class Last {
  private value = '';
  private bytes = quote('');
  of(v: string): Uint8Array {
    if (v !== this.value) {
      this.value = v;
      this.bytes = quote(v);
    }
    return this.bytes;
  }
}

/** a log.raw event's fields but its text (pod and podUID undefined when absent) */
/** A RawFields to fill in and reuse, one per writer. */
export function emptyRawFields(): RawFields {
  return { level: '', source: '', pod: undefined, podUID: undefined, seq: 0, time: 0, node: '', line: 0 };
}

export interface RawFields {
  level: string;
  source: string;
  pod: string | undefined;
  podUID: string | undefined;
  seq: number;
  time: number;
  node: string;
  line: number;
}

/** where the NDJSON goes: stdout, or any stream with the same write/drain contract */
export interface Sink {
  write(b: Uint8Array): boolean;
  once(event: 'drain', f: () => void): unknown;
}

export class NdjsonOut {
  private buf: Buffer;
  private pos = 0;
  private blocked = false;
  private readonly level = new Last();
  private readonly source = new Last();
  private readonly node = new Last();

  /** `fresh` gives the next output buffer (CHUNK bytes): a new one, or one the sink is done with */
  constructor(
    private readonly sink: Sink,
    private readonly fresh: () => Buffer = () => Buffer.allocUnsafe(CHUNK),
  ) {
    this.buf = fresh();
  }

  push = (ev: TraceEvent): void => {
    if (ev.type === 'log.raw') this.raw(ev);
    else this.line(JSON.stringify(ev));
  };

  /** an event already in JSON (JSON.stringify's text): written with its newline */
  pushJson = (s: string): void => this.line(s);

  /** an event already in JSON as UTF-8 bytes, src[start..end): written with its newline */
  pushJsonBytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (!this.room(n + 1)) {
      const big = Buffer.allocUnsafe(n + 1);
      big.set(src.subarray(start, end));
      big[n] = 10;
      this.send(big);
      return;
    }
    this.buf.set(src.subarray(start, end), this.pos);
    this.pos += n;
    this.buf[this.pos++] = 10;
  }

  /**
   * A log.raw event whose text is the UTF-8 bytes src[start..end) of a well-formed string (no lone surrogate)
   * and whose other fields are in `f`: the bytes `push` writes for the same event.
   */
  pushRawBytes(src: Uint8Array, start: number, end: number, f: RawFields): void {
    this.rawOf(undefined, src, start, end, f);
  }

  /** one JSON text and its newline */
  private line(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 unit, plus the newline
    if (!this.room(s.length * 3 + 1)) {
      this.send(Buffer.from(`${s}\n`));
      return;
    }
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.buf[this.pos++] = 10;
  }

  private readonly fields = emptyRawFields();

  private raw(ev: Raw): void {
    const f = this.fields;
    f.level = ev.level ?? '';
    f.source = ev.source ?? '';
    f.pod = ev.pod;
    f.podUID = ev.podUID;
    f.seq = ev.seq;
    f.time = ev.time;
    f.node = ev.node ?? '';
    f.line = ev.origin?.line ?? 0;
    this.rawOf(ev.text, undefined, 0, 0, f);
  }

  /** a log.raw event, its text a string or (text undefined) the bytes src[start..end) */
  private rawOf(
    text: string | undefined,
    src: Uint8Array | undefined,
    start: number,
    end: number,
    f: RawFields,
  ): void {
    const level = this.level.of(f.level);
    const source = this.source.of(f.source);
    const pod = f.pod !== undefined ? quote(f.pod) : undefined;
    const podUID = f.podUID !== undefined ? quote(f.podUID) : undefined;
    const node = this.node.of(f.node);
    // the text escaped takes at most 6 bytes a code unit (or a byte); the numbers at most 25 bytes each
    const most =
      (text !== undefined ? text.length : end - start) * 6 +
      level.length +
      source.length +
      (pod?.length ?? 0) +
      (podUID?.length ?? 0) +
      node.length +
      256;
    // room() may start a new buffer: read this.buf after it
    const fits = this.room(most);
    const b: Uint8Array = fits ? this.buf : Buffer.allocUnsafe(most);
    let p = copy(b, fits ? this.pos : 0, RAW_HEAD);
    p =
      text !== undefined ? writeJsonString(b, p, text) : writeJsonBytes(b, p, src as Uint8Array, start, end);
    p = copy(b, copy(b, p, LEVEL), level);
    p = copy(b, copy(b, p, SOURCE), source);
    if (pod) p = copy(b, copy(b, p, POD), pod);
    if (podUID) p = copy(b, copy(b, p, POD_UID), podUID);
    p = writeNumber(b, copy(b, p, SEQ), f.seq);
    p = writeNumber(b, copy(b, p, TIME), f.time);
    p = copy(b, copy(b, p, NODE), node);
    p = writeNumber(b, copy(b, p, ORIGIN), f.line);
    p = copy(b, p, END);
    if (fits) this.pos = p;
    else this.send(b.subarray(0, p));
  }

  /** makes room for `n` more bytes; false when they could never fit in one buffer */
  private room(n: number): boolean {
    if (this.pos + n <= this.buf.length) return true;
    this.spill();
    return n <= this.buf.length;
  }

  /** hands the filled part of the buffer to the sink and starts a new one (the sink may still hold the old) */
  private spill(): void {
    if (this.pos === 0) return;
    const full = this.buf.subarray(0, this.pos);
    this.buf = this.fresh();
    this.pos = 0;
    this.send(full);
  }

  private send(b: Uint8Array): void {
    if (!this.sink.write(b)) this.blocked = true;
  }

  async drain(): Promise<void> {
    if (!this.blocked) return;
    await new Promise<void>((r) => this.sink.once('drain', () => r()));
    this.blocked = false;
  }

  async end(): Promise<void> {
    this.spill();
    await this.drain();
  }
}

/**
 * One log.raw event's NDJSON line without its newline, the bytes NdjsonOut writes for it. For the rare event
 * that cannot cross to the encoder thread as UTF-8 (a lone surrogate in a string). A writer with no buffer of
 * its own hands over each event in a buffer of its own.
 */
export function rawLineBytes(ev: Raw): Uint8Array {
  let line: Uint8Array = new Uint8Array(0);
  const one = new NdjsonOut(
    {
      write: (b) => {
        line = b;
        return true;
      },
      once: () => undefined,
    },
    () => Buffer.alloc(0),
  );
  one.push(ev);
  return line.subarray(0, line.length - 1);
}
