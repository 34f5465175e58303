/**
 * Pretty-printed JSON records, one field per line: `journalctl -o json-pretty`, `gcloud logging read
 * --format=json` (an array of Cloud Logging entries), a saved Elasticsearch answer's hits. Such an input is
 * told by its first line that is not blank (a lone `{` or `[`); each record is gathered from its opening brace
 * to the closing brace at the same indentation and then read as a line of JSON would be, numbered by the line
 * that holds its message (else its first) and spanning all of them. A line inside a record that is not indented
 * deeper than its brace means there was no record (a log that starts with a lone brace): the lines taken are
 * handed back and the input is read line by line. Called by EntryReader for every line before anything else;
 * after an input's first line says it is not such a document, that costs one comparison a line. Memory: one
 * record, at most `maxChars`.
 */

export interface PrettySink {
  /**
   * a whole record, as one JSON text, over `lines` lines; `line` is the one that holds the line it ships (its
   * MESSAGE, message, log, …: what a reader of the record looks at), else its first
   */
  record(text: string, line: number, lines: number): void;
  /** a line of the document around the records (`[`, `]`, a comma) */
  structural(): void;
  /** a record larger than maxChars, or cut off by the end of the input: its lines, skipped */
  dropped(lines: number): void;
  /** lines taken for a record that turned out not to be one: to be read as usual, in order */
  replay(lines: readonly { text: string; no: number }[]): void;
}

const CLOSE = /^(\s*)\}\s*,?\s*$/;
/** the line of a record that holds the shipped line (wrapped.ts' text fields): what an event of it points at */
const TEXT_LINE = /^\s*"(?:MESSAGE|textPayload|message|log|line|msg)"\s*:\s*"/;

export class PrettyJson {
  /** undecided until the input's first line that is not blank */
  private state: 'undecided' | 'no' | 'yes' = 'undecided';
  /** the open record's lines as far as maxChars allows, and how many there are in all */
  private held: { text: string; no: number }[] = [];
  private count = 0;
  private chars = 0;
  private indent = '';
  private open = false;

  constructor(
    private readonly sink: PrettySink,
    private readonly maxChars: number,
  ) {}

  /** Whether `raw` (line `no`) is this reader's; when it is not, the caller reads it as usual. */
  take(raw: string, no: number): boolean {
    if (this.state === 'no') return false;
    if (this.state === 'undecided') {
      const t = raw.trim();
      if (t === '') return false;
      this.state = t === '{' || t === '[' ? 'yes' : 'no';
      if (this.state === 'no') return false;
    }
    if (!this.open) {
      const t = raw.trim();
      if (t === '[' || t === ']' || t === ',' || t === '],' || t === '') {
        if (t !== '') this.sink.structural();
        return t !== '';
      }
      if (t !== '{') return false;
      this.open = true;
      this.indent = raw.slice(0, raw.indexOf('{'));
      this.held = [{ text: raw, no }];
      this.count = 1;
      this.chars = raw.length;
      return true;
    }
    const close = CLOSE.exec(raw);
    if (close && close[1] === this.indent) {
      const whole = this.chars + raw.length + 1 <= this.maxChars;
      // brace to brace (classify tells a JSON record by its first character; an array's comma is not the record's)
      const text = whole ? ['{', ...this.held.slice(1).map((h) => h.text), '}'].join('\n') : undefined;
      const lines = this.count + 1;
      const at = this.held.find((h) => TEXT_LINE.test(h.text))?.no ?? no - lines + 1;
      this.reset();
      if (text === undefined) this.sink.dropped(lines);
      else this.sink.record(text, at, lines);
      return true;
    }
    // a pretty printer indents every line inside a record deeper than its braces: a line that is not was never
    // in one (a log that happened to start with a lone brace), and the lines taken are read as usual
    const c = raw.charCodeAt(this.indent.length);
    if (!raw.startsWith(this.indent) || (c !== 32 && c !== 9)) {
      const held = this.held;
      const lost = this.count - held.length;
      this.reset();
      this.state = 'no';
      if (lost > 0) this.sink.dropped(lost);
      this.sink.replay(held);
      return false;
    }
    this.count++;
    this.chars += raw.length + 1;
    if (this.chars <= this.maxChars) this.held.push({ text: raw, no });
    return true;
  }

  /** The input is over: a record still open was cut off. */
  end(): void {
    if (!this.open) return;
    const lines = this.count;
    this.reset();
    this.sink.dropped(lines);
  }

  private reset(): void {
    this.open = false;
    this.held = [];
    this.count = 0;
    this.chars = 0;
  }
}
