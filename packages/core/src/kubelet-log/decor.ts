/**
 * Decorations a paste puts before each line of a log, recognised per block and taken off before the line is
 * read: a line number (`cat -n`, `nl`, `less -N`: `    12\t`, `    12 `, `12 `; `grep -n`: `12:`, a context line's
 * `12-`), a file name (`grep -H`, a grep over several files: `kubelet.log:`, `kubelet.log:12:`,
 * `kubelet.log-12-`), e-mail and Markdown quoting (`> `, `>> `, `> > `), a table's border (`| … |`, `│ … │`),
 * and a stamp put before a line that has a prefix of its own (`kubectl logs --timestamps` or a CI system over a
 * journald line: `2026-11-27T10:00:00.123Z May 12 …`; a stamp right before a klog header or a CRI record is
 * read by the prefix reader, not here). Layers stack in any order (`> kubelet.log:12:…`).
 *
 * The rule is the same for every kind: a line's layers are peeled from its start; a run of up to SAMPLE lines
 * whose layers are of the same kinds is held, and the decoration is taken when it is consistent over the run
 * (line numbers that change from line to line over more than one line, file names not all followed by a
 * blank, a closing border on every line of a bordered one) and what is left of the lines reads as a log (a
 * klog header, a journald date or a JSON record in some line). From then on each line that carries the same layers is stripped at once; a line
 * that does not starts the next block (mixed pastes). A line with no layer passes as it is, as does a blank one.
 * Line numbers are never changed: a line keeps its number in the input as given (what the raw-lines index and
 * the step panel point at). Linear: a line's layers are looked for in its first PEEL_CHARS characters only.
 */

/** how many lines of the same layers decide a block's decoration */
const SAMPLE = 8;
/** how far into a line layers are looked for */
const PEEL_CHARS = 512;
const MAX_LAYERS = 6;

type Kind = 'quote' | 'border' | 'num' | 'file' | 'stamp';
interface Layer {
  kind: Kind;
  /** where the layer's text ends (the next layer or the line starts there) */
  end: number;
  /** a line number, a file name, a stamp's year and month */
  num?: number;
  name?: string;
  month?: number;
  /** a file name followed by a blank: a host's name (`node-a: `) unless other lines of the run are not */
  spaced?: boolean;
}

const QUOTE = /^>(?: ?>)*(?: |(?=\S)|$)/;
const BORDER = /^[|│┃](?: |$)/;
const NUM = /^ *(\d{1,9})(?:\t| |:|-(?=\D))/;
const FILE = /^([A-Za-z_./][\w./-]*?)(?::|-(?=\d{1,9}-))/;
const STAMP = /^(\d{4})-(\d\d)-\d\dT\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)? /;
/**
 * after a stamp that is a decoration: a prefix with a time of its own (journald's short date, an ISO stamp,
 * RFC 5424) or another decoration (a line number, a quote, a border). Anything else behind a stamp (a klog header, a label set, a CRI record, the host of journald's
 * short-iso form) is the prefix reader's.
 */
const STAMP_OVER = /^(?:[A-Z][a-z]{2} [ \d]\d \d\d:|\d{4}-\d\d-\d\dT|<\d{1,3}>| *\d{1,9}[\t :-]|>|[|│┃] )/;
/** what a log line holds somewhere near its start */
const LOG_LIKE = /[IWEF]\d{4} \d\d:\d\d:\d\d|^\s*\{|^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d|"ts":/;

/** what peel gives a line without layers (most lines): one array, never changed */
const NO_LAYERS: readonly Layer[] = [];

/** the layers at the start of `raw` (none for a plain line) */
function peel(raw: string): Layer[] {
  const head = raw.length > PEEL_CHARS ? raw.slice(0, PEEL_CHARS) : raw;
  const first = layerAt(head);
  if (!first) return NO_LAYERS as Layer[];
  const out: Layer[] = [first];
  let at = first.end;
  while (out.length < MAX_LAYERS && at < head.length) {
    const s = at === 0 ? head : head.slice(at);
    const l = layerAt(s);
    if (!l) break;
    l.end += at;
    at = l.end;
    out.push(l);
  }
  return out;
}

function layerAt(s: string): Layer | undefined {
  const c = s.charCodeAt(0);
  if (c === 62) {
    const m = QUOTE.exec(s);
    return m ? { kind: 'quote', end: m[0].length } : undefined;
  }
  if (c === 124 || c === 0x2502 || c === 0x2503) {
    const m = BORDER.exec(s);
    return m ? { kind: 'border', end: m[0].length, name: s[0] as string } : undefined;
  }
  if (c === 32 || (c >= 48 && c <= 57)) {
    const st = c === 32 ? null : STAMP.exec(s);
    if (st) {
      if (!STAMP_OVER.test(s.slice(st[0].length, st[0].length + 16))) return undefined;
      return { kind: 'stamp', end: st[0].length, num: Number(st[1]), month: Number(st[2]) };
    }
    const m = NUM.exec(s);
    return m ? { kind: 'num', end: m[0].length, num: Number(m[1]) } : undefined;
  }
  const f = fileLike(s) ? FILE.exec(s) : null;
  if (!f) return undefined;
  // a `name:` with a line number after it takes it too, as one layer
  const n = s.charCodeAt(f[0].length) <= 57 ? NUM.exec(s.slice(f[0].length)) : null;
  const end = f[0].length + (n && n[0].charCodeAt(0) !== 32 ? n[0].length : 0);
  const l: Layer = { kind: 'file', end, name: f[1] as string };
  const next = s.charCodeAt(f[0].length);
  if (next === 32 || next === 9 || Number.isNaN(next)) l.spaced = true;
  if (end > f[0].length && n) l.num = Number(n[1]);
  return l;
}

/** whether FILE can match: its name ([\w./-], not starting with a digit or dash) holds a dash or ends at a colon */
function fileLike(s: string): boolean {
  const c0 = s.charCodeAt(0);
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122) || c0 === 95 || c0 === 46 || c0 === 47))
    return false;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 45) return true;
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 46 && c <= 57) || c === 95)) return c === 58;
  }
  return false;
}

const kindsOf = (ls: Layer[]) => ls.map((l) => l.kind).join(',');

/** the end of a bordered line's text: before its closing border and the blanks before it, or -1 */
function closeOf(raw: string, border: string): number {
  let e = raw.length;
  while (e > 0 && raw.charCodeAt(e - 1) === 32) e--;
  if (e === 0 || raw[e - 1] !== border) return -1;
  e--;
  while (e > 0 && raw.charCodeAt(e - 1) === 32) e--;
  return e;
}

interface Held {
  raw: string;
  no: number;
  layers: Layer[];
}

export interface Undecorated {
  /** a line's text without its decoration, with its number in the input as given */
  line(text: string, no: number): void;
  /** a stamp taken off gave the year (and month) of the lines after it */
  year(y: number, month: number): void;
}

/** Takes decorations off lines as they arrive, in order; `flush()` lets out the lines it holds. */
export class Undecorator {
  /** the decoration of the block being read (its kinds), or undefined: lines pass as they are */
  private kinds: string | undefined;
  /** per layer, the line number and file name of the line before (a number is never repeated) */
  private lastNum: (number | undefined)[] = [];
  private lastName: (string | undefined)[] = [];
  private held: Held[] = [];

  constructor(private readonly out: Undecorated) {}

  line(raw: string, no: number): void {
    const c0 = raw.charCodeAt(0);
    const blank = raw.length === 0 || ((c0 === 32 || c0 === 9) && raw.trim() === '');
    if (blank || (raw === '--' && (this.kinds !== undefined || this.held.length > 0))) {
      // a blank line, or grep's line between groups, neither ends nor decides a block
      if (this.held.length > 0) this.held.push({ raw, no, layers: [] });
      else this.out.line(raw === '--' ? '' : raw, no);
      return;
    }
    const layers = peel(raw);
    if (layers.length === 0 && this.held.length === 0) {
      // a plain line (most of a log): as it is
      this.kinds = undefined;
      this.out.line(raw, no);
      return;
    }
    const kinds = kindsOf(layers);
    if (this.held.length > 0 && kindsOf(this.held[0]?.layers ?? []) !== kinds) this.decide();
    if (this.held.length === 0 && this.kinds !== undefined && kinds.startsWith(this.kinds)) {
      const text = this.fits(raw, layers);
      if (text !== undefined) {
        this.out.line(text, no);
        return;
      }
    }
    if (layers.length === 0) {
      this.kinds = undefined;
      this.out.line(raw, no);
      return;
    }
    this.held.push({ raw, no, layers });
    if (this.held.length >= SAMPLE) this.decide();
  }

  /** Decides on the lines held and lets them out (a pause in live input, or its end). */
  flush(): void {
    if (this.held.length > 0) this.decide();
  }

  /** the decoration of the held run (the longest consistent run of its layers), and its lines let out */
  private decide(): void {
    const held = this.held;
    this.held = [];
    const lines = held.filter((h) => h.layers.length > 0);
    const first = lines[0]?.layers ?? [];
    let depth = 0;
    for (; depth < first.length; depth++) if (!consistent(lines, depth)) break;
    // a bordered run is decided only when it is taken whole
    if (depth < first.length && first.some((l, i) => i >= depth && l.kind === 'border')) depth = 0;
    const kept = first.slice(0, depth);
    this.kinds = undefined;
    if (depth > 0 && lines.some((h) => LOG_LIKE.test(this.strip(h.raw, h.layers.slice(0, depth)) ?? ''))) {
      this.kinds = kindsOf(kept);
      this.lastNum = kept.map(() => undefined);
      this.lastName = kept.map(() => undefined);
    }
    for (const h of held) {
      if (h.layers.length === 0 || this.kinds === undefined) {
        this.out.line(h.raw === '--' && this.kinds !== undefined ? '' : h.raw, h.no);
        continue;
      }
      const text = this.fits(h.raw, h.layers);
      this.out.line(text ?? h.raw, h.no);
    }
  }

  /** the text of a line under the block's decoration, or undefined when it does not carry it */
  private fits(raw: string, layers: Layer[]): string | undefined {
    const n = (this.kinds as string).split(',').length;
    for (let i = 0; i < n; i++) {
      const l = layers[i] as Layer;
      const last = this.lastNum[i];
      if (l.num !== undefined && l.kind !== 'stamp' && l.num === last && l.name === this.lastName[i])
        return undefined;
    }
    const text = this.strip(raw, layers.slice(0, n));
    if (text === undefined) return undefined;
    for (let i = 0; i < n; i++) {
      const l = layers[i] as Layer;
      if (l.kind !== 'stamp') {
        this.lastNum[i] = l.num;
        this.lastName[i] = l.name;
      } else this.out.year(l.num as number, l.month as number);
    }
    return text;
  }

  private strip(raw: string, layers: Layer[]): string | undefined {
    let end = raw.length;
    for (const l of layers)
      if (l.kind === 'border') {
        end = closeOf(raw.slice(0, end), l.name as string);
        if (end < 0) return undefined;
      }
    const start = layers.length > 0 ? (layers[layers.length - 1] as Layer).end : 0;
    return start >= end ? '' : raw.slice(start, end);
  }
}

/**
 * whether layer `depth` of the run's lines is one decoration: the same kind (the run's lines share their
 * kinds), line numbers that change from line to line of the same file (rising, or falling in input read
 * backwards) over more than one line, a closing border on every bordered line, file names not all followed by a
 * blank (a host's name: `node-a: I0820 …`, `10.0.0.8: {…}`)
 */
function consistent(lines: Held[], depth: number): boolean {
  let prev: Layer | undefined;
  if (lines.every((h) => h.layers[depth]?.spaced)) return false;
  for (const h of lines) {
    const l = h.layers[depth] as Layer;
    if (l.kind === 'num' || (l.kind === 'file' && l.num !== undefined)) {
      if (lines.length < 2 || (prev?.num === l.num && prev?.name === l.name)) return false;
      prev = l;
    }
    if (l.kind === 'border' && closeOf(h.raw, l.name as string) < 0) return false;
  }
  return true;
}
