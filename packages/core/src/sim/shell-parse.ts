/**
 * A parser for the small part of POSIX sh that container commands use: simple commands with quoting and
 * `$VAR` expansion, `;` `&` `&&` `||` `|` `!`, redirections (`>&2`, `2>&1`, `> file`, `>> file`), `while`/`until`,
 * `if`/`elif`/`else`, `for x in ...`, `{ ...; }` and `( ... )`. Parsing is pure; interpreter.ts runs the tree.
 * Anything outside that subset is a ShellSyntaxError, which the shell reports the way busybox ash does.
 */

type WordPart = { t: 'lit'; v: string } | { t: 'var'; name: string };
export interface Word {
  parts: WordPart[];
  /** Any part of the word was quoted (so it is never a reserved word). */
  quoted: boolean;
}

interface Redir {
  fd: number;
  op: '>' | '>>' | '<' | '>&';
  target: Word;
}

export type ShNode =
  | { k: 'simple'; assigns: { name: string; value: Word }[]; words: Word[]; redirs: Redir[] }
  | { k: 'list'; items: { node: ShNode; bg: boolean }[] }
  | { k: 'and' | 'or'; left: ShNode; right: ShNode }
  | { k: 'not'; body: ShNode }
  | { k: 'pipe'; cmds: ShNode[] }
  | { k: 'while'; until: boolean; cond: ShNode; body: ShNode }
  | { k: 'if'; cond: ShNode; then: ShNode; else: ShNode | null }
  | { k: 'for'; name: string; items: Word[]; body: ShNode }
  | { k: 'group'; body: ShNode; subshell: boolean };

export class ShellSyntaxError extends Error {}

type Tok = { t: 'word'; w: Word } | { t: 'op'; v: string } | { t: 'redir'; fd: number; op: Redir['op'] };

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let parts: WordPart[] = [];
  let lit = '';
  let inWord = false;
  let quoted = false;
  const flushLit = () => {
    if (lit) parts.push({ t: 'lit', v: lit });
    lit = '';
  };
  const endWord = () => {
    flushLit();
    if (inWord) toks.push({ t: 'word', w: { parts, quoted } });
    parts = [];
    inWord = false;
    quoted = false;
  };
  const readVar = (i: number): number => {
    // src[i] === '$'; returns the index after the expansion.
    const c = src[i + 1] ?? '';
    if (c === '{') {
      const end = src.indexOf('}', i + 2);
      if (end < 0) throw new ShellSyntaxError('syntax error: bad substitution');
      flushLit();
      parts.push({ t: 'var', name: src.slice(i + 2, end) });
      return end + 1;
    }
    if (/[?$#!0-9]/.test(c)) {
      flushLit();
      parts.push({ t: 'var', name: c });
      return i + 2;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i + 1));
    if (!m) {
      lit += '$';
      return i + 1;
    }
    flushLit();
    parts.push({ t: 'var', name: m[0] });
    return i + 1 + m[0].length;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === '\n') {
      endWord();
      toks.push({ t: 'op', v: '\n' });
      i++;
    } else if (c === '#' && !inWord) {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      endWord();
      const two = src.slice(i, i + 2);
      if (two === '&&' || two === '||' || two === ';;') {
        toks.push({ t: 'op', v: two });
        i += 2;
      } else {
        toks.push({ t: 'op', v: c });
        i++;
      }
    } else if (c === '>' || c === '<') {
      let fd = c === '>' ? 1 : 0;
      if (inWord && parts.length === 0 && /^[0-9]$/.test(lit) && !quoted) {
        fd = Number(lit);
        lit = '';
        inWord = false;
      }
      endWord();
      const next = src[i + 1];
      if (c === '>' && next === '>') {
        toks.push({ t: 'redir', fd, op: '>>' });
        i += 2;
      } else if (next === '&') {
        toks.push({ t: 'redir', fd, op: '>&' });
        i += 2;
      } else {
        toks.push({ t: 'redir', fd, op: c });
        i++;
      }
    } else if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError('syntax error: unterminated quoted string');
      inWord = true;
      quoted = true;
      lit += src.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      quoted = true;
      i++;
      for (;;) {
        if (i >= src.length) throw new ShellSyntaxError('syntax error: unterminated quoted string');
        const d = src[i] as string;
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && /["\\$`\n]/.test(src[i + 1] ?? '')) {
          if (src[i + 1] !== '\n') lit += src[i + 1];
          i += 2;
        } else if (d === '$') {
          i = readVar(i);
        } else {
          lit += d;
          i++;
        }
      }
    } else if (c === '\\') {
      inWord = true;
      quoted = true;
      if (src[i + 1] !== '\n') lit += src[i + 1] ?? '';
      i += 2;
    } else if (c === '$') {
      inWord = true;
      i = readVar(i);
    } else if (c === '`') {
      throw new ShellSyntaxError('syntax error: command substitution is not supported');
    } else {
      inWord = true;
      lit += c;
      i++;
    }
  }
  endWord();
  return toks;
}

/** Literal text of an unquoted, expansion-free word (for reserved words and names). */
function plain(tok: Tok | undefined): string | undefined {
  if (tok?.t !== 'word' || tok.w.quoted) return undefined;
  const p = tok.w.parts;
  if (p.length !== 1 || p[0]?.t !== 'lit') return undefined;
  return p[0].v;
}

export function parseScript(src: string): ShNode {
  const toks = tokenize(src);
  let pos = 0;
  const peek = () => toks[pos];
  const isOp = (v: string) => {
    const t = toks[pos];
    return t?.t === 'op' && t.v === v;
  };
  const isKw = (...kws: string[]) => {
    const p = plain(toks[pos]);
    return p !== undefined && kws.includes(p);
  };
  const unexpected = (): never => {
    const t = peek();
    const what = !t
      ? 'end of file'
      : t.t === 'op'
        ? t.v === '\n'
          ? 'newline'
          : `"${t.v}"`
        : `"${plain(t) ?? 'word'}"`;
    throw new ShellSyntaxError(`syntax error: unexpected ${what}`);
  };
  const expectKw = (kw: string) => {
    if (!isKw(kw)) unexpected();
    pos++;
  };
  const skipNewlines = () => {
    while (isOp('\n')) pos++;
  };

  /** A list up to (not including) one of `stops` (reserved words), `)` or the end. */
  const list = (stops: string[]): ShNode => {
    const items: { node: ShNode; bg: boolean }[] = [];
    for (;;) {
      while (isOp('\n') || isOp(';')) pos++;
      if (!peek() || isOp(')') || isKw(...stops)) break;
      const node = andOr();
      let bg = false;
      if (isOp('&')) {
        bg = true;
        pos++;
      } else if (isOp(';') || isOp('\n')) pos++;
      else if (peek() && !isOp(')') && !isKw(...stops)) unexpected();
      items.push({ node, bg });
    }
    return { k: 'list', items };
  };

  const andOr = (): ShNode => {
    let left = pipeline();
    while (isOp('&&') || isOp('||')) {
      const k = isOp('&&') ? 'and' : 'or';
      pos++;
      skipNewlines();
      left = { k, left, right: pipeline() };
    }
    return left;
  };

  const pipeline = (): ShNode => {
    if (isKw('!')) {
      pos++;
      return { k: 'not', body: pipeline() };
    }
    const cmds = [command()];
    while (isOp('|')) {
      pos++;
      skipNewlines();
      cmds.push(command());
    }
    return cmds.length === 1 ? (cmds[0] as ShNode) : { k: 'pipe', cmds };
  };

  const command = (): ShNode => {
    if (isKw('while', 'until')) {
      const until = isKw('until');
      pos++;
      const cond = list(['do']);
      expectKw('do');
      const body = list(['done']);
      expectKw('done');
      return { k: 'while', until, cond, body };
    }
    if (isKw('if')) {
      pos++;
      return ifRest();
    }
    if (isKw('for')) {
      pos++;
      const name = plain(peek());
      if (!name || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) unexpected();
      pos++;
      const items: Word[] = [];
      skipNewlines();
      if (isKw('in')) {
        pos++;
        for (let t = peek(); t?.t === 'word'; t = peek()) {
          items.push(t.w);
          pos++;
        }
      }
      if (isOp(';') || isOp('\n')) pos++;
      skipNewlines();
      expectKw('do');
      const body = list(['done']);
      expectKw('done');
      return { k: 'for', name: name as string, items, body };
    }
    if (isKw('{')) {
      pos++;
      const body = list(['}']);
      expectKw('}');
      return { k: 'group', body, subshell: false };
    }
    if (isOp('(')) {
      pos++;
      const body = list([]);
      if (!isOp(')')) unexpected();
      pos++;
      return { k: 'group', body, subshell: true };
    }
    return simple();
  };

  const ifRest = (): ShNode => {
    const cond = list(['then']);
    expectKw('then');
    const then = list(['elif', 'else', 'fi']);
    if (isKw('elif')) {
      pos++;
      return { k: 'if', cond, then, else: ifRest() };
    }
    let otherwise: ShNode | null = null;
    if (isKw('else')) {
      pos++;
      otherwise = list(['fi']);
    }
    expectKw('fi');
    return { k: 'if', cond, then, else: otherwise };
  };

  const simple = (): ShNode => {
    const node: Extract<ShNode, { k: 'simple' }> = { k: 'simple', assigns: [], words: [], redirs: [] };
    for (;;) {
      const t = peek();
      if (t?.t === 'redir') {
        pos++;
        const target = peek();
        if (target?.t !== 'word') unexpected();
        pos++;
        node.redirs.push({ fd: t.fd, op: t.op, target: (target as { w: Word }).w });
      } else if (t?.t === 'word') {
        // A reserved word ends a simple command only where it can close a construct.
        if (node.words.length > 0 && plain(t) === '}') break;
        if (
          node.words.length === 0 &&
          ['do', 'done', 'then', 'elif', 'else', 'fi', '}'].includes(plain(t) ?? '')
        )
          break;
        const first = t.w.parts[0];
        const m =
          first?.t === 'lit' && node.words.length === 0 ? /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(first.v) : null;
        if (m && first?.t === 'lit') {
          const value: Word = {
            parts: [{ t: 'lit', v: first.v.slice(m[0].length) }, ...t.w.parts.slice(1)],
            quoted: t.w.quoted,
          };
          node.assigns.push({ name: m[1] as string, value });
        } else node.words.push(t.w);
        pos++;
      } else break;
    }
    if (node.words.length === 0 && node.assigns.length === 0 && node.redirs.length === 0) unexpected();
    return node;
  };

  const root = list([]);
  if (pos < toks.length) unexpected();
  return root;
}
