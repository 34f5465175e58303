/**
 * klog's structured text form (v1.20+): `"message" key1="quoted" key2=bare key3={"json":1} key4=[a b] key5=&{A:1 B:x} key6=<
 * multi-line
 *  >`. parseStructured splits it into the message and its values; values stay strings (JSON and Go struct
 * values as written), so a recogniser parses only what it needs. Browser-safe; called once per structured
 * line whose message a recogniser claims.
 */

/** Reads a Go/JSON double-quoted string starting at s[i] === '"'. Returns the value and the index after it. */
export function readQuoted(s: string, i: number): { value: string; end: number } {
  // most messages have no escapes: one slice
  const close = s.indexOf('"', i + 1);
  if (close > 0) {
    const esc = s.indexOf('\\', i + 1);
    if (esc < 0 || esc > close) return { value: s.slice(i + 1, close), end: close + 1 };
  }
  let out = '';
  let j = i + 1;
  let chunkStart = j;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 34 /* " */) {
      out += s.slice(chunkStart, j);
      return { value: out, end: j + 1 };
    }
    if (c === 92 /* \ */) {
      out += s.slice(chunkStart, j);
      const e = s[j + 1];
      j += 2;
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'u':
          out += String.fromCharCode(Number.parseInt(s.slice(j, j + 4), 16) || 0xfffd);
          j += 4;
          break;
        case 'x':
          out += String.fromCharCode(Number.parseInt(s.slice(j, j + 2), 16) || 0xfffd);
          j += 2;
          break;
        case undefined:
          break;
        default:
          out += e;
      }
      chunkStart = j;
      continue;
    }
    j++;
  }
  // a cut line: keep what there is
  return { value: out + s.slice(chunkStart), end: s.length };
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
      value = q.value;
      j = q.end;
    } else if (c === '{' || c === '[' || (c === '&' && text[j + 1] === '{')) {
      // JSON, or Go's %+v of a struct, a pointer to one (`&{ID:… Type:…}`) or a slice (`[a b]`)
      const end = readBalanced(text, c === '&' ? j + 1 : j);
      value = text.slice(j, end);
      j = end;
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
