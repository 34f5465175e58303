/**
 * Pretty-printed JSON records, one field per line: `journalctl -o json-pretty`, `gcloud logging read
 * --format=json` (an array of Cloud Logging entries), a saved Elasticsearch answer's hits. Such an input is
 * told by its first line that is not blank (a lone `{` or `[`); each record is gathered from its opening brace
 * to the closing brace at the same indentation and then read as a line of JSON would be, numbered by its first
 * line and spanning all of them. Called by EntryReader for every line before anything else; after an input's
 * first line says it is not such a document, that costs one comparison a line. Memory: one record, at most
 * `maxChars`.
 */

export interface PrettySink {
  /** a whole record, as one JSON text, from line `line` over `lines` lines */
  record(text: string, line: number, lines: number): void;
  /** a line of the document around the records (`[`, `]`, a comma) */
  structural(): void;
  /** a record larger than maxChars, or cut off by the end of the input: its lines, skipped */
  dropped(lines: number): void;
}

const CLOSE = /^(\s*)\}\s*,?\s*$/;

export class PrettyJson {
  /** undecided until the input's first line that is not blank */
  private state: 'undecided' | 'no' | 'yes' = 'undecided';
  private parts: string[] = [];
  private chars = 0;
  private indent = '';
  private first = 0;
  private open = false;

  constructor(
    private readonly sink: PrettySink,
    private readonly maxChars: number,
  ) {}

  /** Whether `raw` (line `no`) is this reader's; when it is not, the caller reads it as usual. */
  take(raw: string, no: number): boolean {
    if (this.state === 'no') return false;
    const t = raw.trim();
    if (this.state === 'undecided') {
      if (t === '') return false;
      this.state = t === '{' || t === '[' ? 'yes' : 'no';
      if (this.state === 'no') return false;
    }
    if (!this.open) {
      if (t === '[' || t === ']' || t === ',' || t === '],' || t === '') {
        if (t !== '') this.sink.structural();
        return t !== '';
      }
      if (t !== '{') return false;
      this.open = true;
      this.indent = raw.slice(0, raw.indexOf('{'));
      this.first = no;
      this.parts = ['{'];
      this.chars = 1;
      return true;
    }
    this.chars += raw.length + 1;
    const close = CLOSE.exec(raw);
    if (close && close[1] === this.indent) {
      this.parts.push('}');
      const text = this.chars <= this.maxChars ? this.parts.join('\n') : undefined;
      const lines = no - this.first + 1;
      this.reset();
      if (text === undefined) this.sink.dropped(lines);
      else this.sink.record(text, no - lines + 1, lines);
      return true;
    }
    if (this.chars <= this.maxChars) this.parts.push(raw);
    return true;
  }

  /** The input is over: a record still open was cut off. */
  end(lastLine: number): void {
    if (!this.open) return;
    const lines = lastLine - this.first + 1;
    this.reset();
    this.sink.dropped(lines);
  }

  private reset(): void {
    this.open = false;
    this.parts = [];
    this.chars = 0;
  }
}
