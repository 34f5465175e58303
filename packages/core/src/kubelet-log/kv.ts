/**
 * klog's structured text form (v1.20+): `"message" key1="quoted" key2=bare key3={"json":1} key4=[a b] key5=&{A:1 B:x} key6=<
 * multi-line
 *  >`. parseStructured splits it into the message and its values; values stay strings (JSON and Go struct
 * values as written), so a recogniser parses only what it needs. Browser-safe; called once per structured
 * line whose message a recogniser claims.
 */

/** Reads a Go/JSON double-quoted string starting at s[i] === '"'. Returns the value and the index after it. */
export function readQuoted(s: string, i: number): { value: string; end: number; cut?: true } {
  // most values have no escapes: one slice (the scan stops at the closing quote, so reading every value of a
  // line reads the line once)
  let j = i + 1;
  for (let c = s.charCodeAt(j); j < s.length && c !== 92; c = s.charCodeAt(++j))
    if (c === 34) return { value: s.slice(i + 1, j), end: j + 1 };
  // the rest in pieces, joined once (a value of a million escapes costs a million pieces, not a million copies)
  const out: string[] = [];
  let chunkStart = i + 1;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 34 /* " */) {
      out.push(s.slice(chunkStart, j));
      return { value: out.join(''), end: j + 1 };
    }
    if (c === 92 /* \ */) {
      // escapes one after another leave no text between them to keep
      if (j > chunkStart) out.push(s.slice(chunkStart, j));
      const e = s[j + 1];
      j += 2;
      switch (e) {
        case 'n':
          out.push('\n');
          break;
        case 't':
          out.push('\t');
          break;
        case 'r':
          out.push('\r');
          break;
        case 'u':
          out.push(String.fromCharCode(Number.parseInt(s.slice(j, j + 4), 16) || 0xfffd));
          j += 4;
          break;
        case 'x':
          out.push(String.fromCharCode(Number.parseInt(s.slice(j, j + 2), 16) || 0xfffd));
          j += 2;
          break;
        case undefined:
          break;
        default:
          out.push(e);
      }
      chunkStart = j;
      continue;
    }
    j++;
  }
  // a cut line: keep what there is, without the mark of the cut
  out.push(s.slice(chunkStart));
  return { value: uncut(out.join('')), end: s.length, cut: true };
}

/** a pager's `>` at the cut (`less -S`), an ellipsis (`…`, `...`): what a value cut off at the end shows */
const CUT_MARK = /(?:>|…|\.\.\.)\s*$/;

/** A value cut off at the end of its line without the mark of the cut. */
function uncut(v: string): string {
  const m = CUT_MARK.exec(v.length > 8 ? v.slice(-8) : v);
  return m ? v.slice(0, v.length - m[0].length) : v;
}

/** Index after a balanced {...} or [...] value starting at s[i], skipping quoted strings. */
function readBalanced(s: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < s.length) {
    const c = s[j];
    if (c === '"') {
      j = readQuoted(s, j).end;
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return s.length;
}

/** the keys whose value names a pod */
const POD_KEYS = new Set(['pod', 'pods', 'podName', 'podUID', 'podID']);

export interface Structured {
  msg: string;
  kv: Record<string, string>;
}

/** Parses a structured klog message; undefined when the text does not start with a quoted message. */
export function parseStructured(text: string): Structured | undefined {
  if (text.charCodeAt(0) !== 34) return undefined;
  const head = readQuoted(text, 0);
  const kv: Record<string, string> = {};
  let i = head.end;
  const n = text.length;
  while (i < n) {
    while (i < n && (text[i] === ' ' || text[i] === '\n')) i++;
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const key = text.slice(i, eq);
    if (key === '' || key.includes(' ')) break;
    let j = eq + 1;
    const c = text[j];
    let value: string;
    if (c === '"') {
      const q = readQuoted(text, j);
      // a pod's name cut with the line is no name (only its start): the value is left out
      if (q.cut && POD_KEYS.has(key)) break;
      value = q.value;
      j = q.end;
    } else if (c === '{' || c === '[' || (c === '&' && text[j + 1] === '{')) {
      // JSON, or Go's %+v of a struct, a pointer to one (`&{ID:… Type:…}`) or a slice (`[a b]`)
      const end = readBalanced(text, c === '&' ? j + 1 : j);
      value = text.slice(j, end);
      j = end;
    } else if (c === '<' && j + 1 === n) {
      // a multi-line value whose lines were cut off (a paste of the first line): no value
      break;
    } else if (c === '<' && text[j + 1] === '\n') {
      // a multi-line value: lines indented by a tab, closed by " >" on a line of its own
      const close = text.indexOf('\n >', j);
      const end = close < 0 ? n : close;
      value = text
        .slice(j + 2, end)
        .split('\n')
        .map((l) => l.replace(/^(\t| {1,8})/, ''))
        .join('\n');
      j = close < 0 ? n : close + 3;
    } else {
      let end = text.indexOf(' ', j);
      if (end < 0) end = n;
      value = text.slice(j, end);
      j = end;
    }
    kv[key] = value;
    i = j;
  }
  return { msg: head.value, kv };
}

/**
 * JSON.stringify of a value read from a klog JSON record, which may nest deeper than the stack allows (the parse
 * does not recurse, the stringify does): a value too deep is written as `"…"`, on the first level that fits.
 */
export function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    if (typeof v !== 'object' || v === null) return '"…"';
    const parts: string[] = [];
    if (Array.isArray(v)) {
      for (const x of v) parts.push(shallow(x));
      return `[${parts.join(',')}]`;
    }
    for (const [k, x] of Object.entries(v)) parts.push(`${JSON.stringify(k)}:${shallow(x)}`);
    return `{${parts.join(',')}}`;
  }
}

function shallow(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"…"';
  }
}
