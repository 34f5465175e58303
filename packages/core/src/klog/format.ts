/**
 * klog's text output, as a kubelet writes it with the default `--logging-format=text`: the header
 *
 *   I1123 14:02:03.123456    4242 kubelet.go:2421] "SyncLoop ADD" source="api" pods=["default/x"]
 *
 * (severity letter, MMDD, wall time with microseconds, the thread id right-aligned in 7 columns, file:line,
 * `] `) and then InfoS/ErrorS's structured form: the message quoted, then key=value pairs. Values follow
 * klog's rules: a string is Go-quoted (strconv.Quote), or written as a `key=<` block when it holds a line
 * break; numbers and booleans are bare; lists and objects are JSON. ErrorS puts `err="…"` right after the
 * message. Times are written in UTC (a real kubelet writes its host's local time; the importer reads UTC
 * unless told a zone). Pure and browser-safe: no Node imports.
 */

/** A value klog can print: string, number, boolean, a list or a plain object (JSON). */
export type KlogValue =
  | string
  | number
  | boolean
  | null
  | readonly unknown[]
  | { readonly [k: string]: unknown };

/** Go's strconv.Quote of a string: `"`, `\` and control characters escaped, the rest as is. */
export function goQuote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x7f) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x09:
        out += '\\t';
        break;
      case 0x0d:
        out += '\\r';
        break;
      default:
        out += `\\x${c.toString(16).padStart(2, '0')}`;
    }
  }
  return `${out + s.slice(start)}"`;
}

/** One `key=value` in klog's text form. */
export function kvText(key: string, value: KlogValue): string {
  if (typeof value === 'string') {
    if (!value.includes('\n')) return `${key}=${goQuote(value)}`;
    // klog writes a multi-line string as an indented block closed by " >"
    const body = value.replace(/\n$/, '').split('\n').join('\n\t');
    return `${key}=<\n\t${body}\n >`;
  }
  if (typeof value === 'number')
    return `${key}=${Number.isFinite(value) ? String(value) : goQuote(String(value))}`;
  if (typeof value === 'boolean' || value === null) return `${key}=${String(value)}`;
  return `${key}=${JSON.stringify(value)}`;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** The klog header for an entry at `timeMs` (UTC), e.g. `I1123 14:02:03.123000    4242 kubelet.go:2421] `. */
export function klogHeader(severity: 'I' | 'W' | 'E', timeMs: number, pid: number, source: string): string {
  const d = new Date(timeMs);
  const us = Math.floor((((timeMs % 1000) + 1000) % 1000) * 1000);
  const stamp =
    `${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${String(us).padStart(6, '0')}`;
  return `${severity}${stamp} ${String(pid).padStart(7, ' ')} ${source}] `;
}

/** One structured entry: header, quoted message, then the pairs in order (pairs with undefined values left out). */
export function klogLine(
  severity: 'I' | 'W' | 'E',
  timeMs: number,
  pid: number,
  source: string,
  msg: string,
  pairs: readonly (readonly [string, KlogValue | undefined])[] = [],
): string {
  let out = klogHeader(severity, timeMs, pid, source) + goQuote(msg);
  for (const [k, v] of pairs) if (v !== undefined) out += ` ${kvText(k, v)}`;
  return out;
}
