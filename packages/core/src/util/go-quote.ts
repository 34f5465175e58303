/**
 * Go's `%q` / strconv.Quote for a string, as the kubelet's messages quote names, reasons and messages:
 * double quotes around, `"` and `\` escaped, the C escapes \a \b \f \n \r \t \v, other ASCII controls as
 * \xHH, and any other rune Go does not count as printable (unicode.IsPrint: letters, marks, numbers,
 * punctuation, symbols and the ASCII space) as \uHHHH or \UHHHHHHHH. Printable non-ASCII stays as it is.
 */
const C_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
/** The common case, nothing to escape: printable ASCII without `"` or `\`. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function goQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const esc = C_ESCAPES[ch];
    if (esc) {
      out += esc;
      continue;
    }
    const cp = ch.codePointAt(0) as number;
    if (cp < 0x80) out += cp < 0x20 || cp === 0x7f ? `\\x${hex(cp, 2)}` : ch;
    else if (PRINTABLE.test(ch)) out += ch;
    else out += cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
  }
  return `${out}"`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
