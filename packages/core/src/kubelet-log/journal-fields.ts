/**
 * journalctl's field-per-line forms, read as the JSON records they hold:
 *   -o verbose   a line with the entry's time and cursor (`Tue 2024-05-12 05:38:17.098489 UTC [s=…;i=…;…]`),
 *                then one `    FIELD=value` line per field (four spaces);
 *   -o export    `FIELD=value` lines, a blank line after each entry; a value holding a newline (a multi-line
 *                MESSAGE) is written as the field's name alone on a line, its length as 8 bytes (little-endian),
 *                the bytes, and a newline.
 * Such an input is told by its first line that is neither blank nor one of journalctl's own `-- … --` lines.
 * Each entry's fields become one JSON record (wrapped.ts reads MESSAGE, _HOSTNAME, _PID, SYSLOG_IDENTIFIER and
 * __REALTIME_TIMESTAMP as it does in `-o json`); a verbose entry's time is taken from its line when that says
 * UTC (else the klog header's time in MESSAGE stands). The record is numbered by its MESSAGE line and spans all
 * of the entry's lines. Called by EntryReader for every line before anything else; once an input's first line
 * says it is not such a form, that costs one comparison a line. Memory: one entry, at most `maxChars`.
 */

import { byteLength } from '../util/utf8.ts';

export interface JournalSink {
  /** one entry, as one JSON text, over `lines` lines; `line` holds its MESSAGE (else its first line) */
  record(text: string, line: number, lines: number): void;
  /** an entry larger than maxChars: its lines, skipped */
  dropped(lines: number): void;
}

const VERBOSE_HEAD =
  /^[A-Z][a-z]{2} (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) (\S+) \[s=[0-9a-f]+;i=[0-9a-f]+/;
const EXPORT_FIRST = /^__(?:CURSOR|REALTIME_TIMESTAMP)=/;
const FIELD = /^([A-Z_][A-Z0-9_]*)=/;
const BARE = /^[A-Z_][A-Z0-9_]*$/;

/** a value written as its length and bytes (export), while its lines arrive */
interface Binary {
  key: string;
  /** the lines so far, joined by newlines; undefined before the first */
  text: string | undefined;
  /** UTF-8 bytes of text */
  bytes: number;
  /** the value's length in bytes once its 8 length bytes are read; -1 when they did not decode as themselves
   * (then the value runs up to the next field) */
  need: number | undefined;
}

export class JournalFields {
  private state: 'undecided' | 'no' | 'verbose' | 'export' = 'undecided';
  private fields: Record<string, string> | undefined;
  private last = '';
  private first = 0;
  private messageAt = 0;
  private count = 0;
  private chars = 0;
  private binary: Binary | undefined;

  constructor(
    private readonly sink: JournalSink,
    private readonly maxChars: number,
  ) {}

  /** Whether `raw` (line `no`) is this reader's; when it is not, the caller reads it as usual. */
  take(raw: string, no: number): boolean {
    if (this.state === 'no') return false;
    if (this.state === 'undecided') {
      if (raw.trim() === '' || raw.startsWith('-- ')) return false;
      this.state = VERBOSE_HEAD.test(raw) ? 'verbose' : EXPORT_FIRST.test(raw) ? 'export' : 'no';
      if (this.state === 'no') return false;
    }
    return this.state === 'verbose' ? this.verbose(raw, no) : this.export(raw, no);
  }

  /** The input is over: the last entry is whole. */
  end(): void {
    if (this.binary) this.endBinary();
    this.flush();
  }

  private verbose(raw: string, no: number): boolean {
    const head = VERBOSE_HEAD.exec(raw);
    if (head) {
      this.flush();
      this.open(no);
      this.grow(raw);
      const zone = head[3] as string;
      const ms = zone === 'UTC' || zone === 'GMT' ? Date.parse(`${head[1]}T${head[2]}Z`) : Number.NaN;
      if (Number.isFinite(ms) && this.fields) {
        // microseconds, as -o json gives it
        const us = (head[2] as string).split('.')[1]?.padEnd(6, '0').slice(3, 6) ?? '000';
        this.fields.__REALTIME_TIMESTAMP = `${ms}${us}`;
      }
      return true;
    }
    if (raw.startsWith('-- ')) {
      // journalctl's own lines (`-- Boot 1a2b… --`) come between entries: read as usual
      this.flush();
      return false;
    }
    if (this.fields === undefined) this.open(no);
    const field = raw.startsWith('    ') ? FIELD.exec(raw.slice(4)) : null;
    if (field) this.set(field[1] as string, raw.slice(4 + (field[0] as string).length), no);
    else this.append(raw);
    return true;
  }

  private export(raw: string, no: number): boolean {
    const b = this.binary;
    if (b && b.need === -1 && (raw === '' || FIELD.test(raw) || BARE.test(raw))) this.endBinary();
    else if (b) {
      this.grow(raw);
      b.bytes += (b.text === undefined ? 0 : 1) + byteLength(raw);
      b.text = b.text === undefined ? raw : `${b.text}\n${raw}`;
      if (b.need === undefined && b.text.length >= 8) {
        let n = 0;
        for (let k = 7; k >= 0; k--) {
          const c = b.text.charCodeAt(k);
          n = c >= 0x80 || n < 0 ? -1 : n * 256 + c;
        }
        b.need = n;
      }
      // (when need is known, its 8 length bytes were single-byte characters)
      if (b.need !== undefined && b.need >= 0 && b.bytes - 8 >= b.need) this.endBinary();
      return true;
    }
    if (raw === '') {
      if (this.fields === undefined) return false;
      this.grow(raw);
      this.flush();
      return true;
    }
    if (this.fields === undefined) this.open(no);
    const field = FIELD.exec(raw);
    if (field) this.set(field[1] as string, raw.slice((field[0] as string).length), no);
    else if (BARE.test(raw)) {
      this.grow(raw);
      this.binary = { key: raw, text: undefined, bytes: 0, need: undefined };
      if (raw === 'MESSAGE') this.messageAt = no;
    } else this.append(raw);
    return true;
  }

  /** a value written as its length and bytes is whole: its length reached, the next field, or the input's end */
  private endBinary(): void {
    const b = this.binary as Binary;
    this.binary = undefined;
    const text = b.text ?? '';
    const value = text.length >= 8 ? text.slice(8) : '';
    if (this.fields && this.chars <= this.maxChars) this.fields[b.key] = value;
  }

  private open(no: number): void {
    this.fields = {};
    this.first = no;
    this.messageAt = 0;
    this.count = 0;
    this.chars = 0;
    this.last = '';
  }

  private grow(raw: string): void {
    this.count++;
    this.chars += raw.length + 1;
  }

  private set(key: string, value: string, no: number): void {
    this.grow(value);
    this.last = key;
    if (key === 'MESSAGE') this.messageAt = no;
    if (this.fields && this.chars <= this.maxChars) this.fields[key] = value;
  }

  /** a line that is no field: the rest of the field before it (a value printed over several lines) */
  private append(raw: string): void {
    this.grow(raw);
    const f = this.fields;
    if (f && this.last !== '' && this.chars <= this.maxChars) f[this.last] = `${f[this.last] ?? ''}\n${raw}`;
  }

  private flush(): void {
    const f = this.fields;
    if (f === undefined) return;
    this.fields = undefined;
    const lines = this.count;
    if (lines === 0) return;
    if (this.chars > this.maxChars) this.sink.dropped(lines);
    else this.sink.record(JSON.stringify(f), this.messageAt || this.first, lines);
  }
}
