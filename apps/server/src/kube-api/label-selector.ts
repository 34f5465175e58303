/**
 * Label selectors as the API server reads `?labelSelector=` (apimachinery labels.Parse): the same grammar,
 * the same matching rules and the same error texts, so `kubectl get pods -l 'tier in (web'` is refused here
 * with the words a cluster uses.
 *
 * Requirements joined by ','; each is `key`, `!key`, `key=v`, `key==v`, `key!=v`, `key in (a,b)`,
 * `key notin (a,b)`, `key>n`, `key<n`. Keys are qualified names, values label values (label-names.ts).
 * Pure functions; the routes turn a failure's message into a 400 BadRequest.
 */
import { labelValueErrors, qualifiedNameErrors } from './label-names.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** sorted, without duplicates; empty for exists and ! */
  values: string[];
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const SYMBOLS: Record<string, string> = {
  ')': ')',
  ',': ',',
  '!': '!',
  '==': '==',
  '=': '=',
  '>': 'gt',
  '<': 'lt',
  '!=': '!=',
  '(': '(',
};
const isSpecial = (c: string) => '=!(),><'.includes(c);
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

type Tok = { t: 'id' | 'end' | 'error' | 'in' | 'notin' | string; lit: string };

/** The label selector lexer: keywords, operators and identifiers, as labels.Lexer splits them. */
function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  for (;;) {
    while (i < s.length && isSpace(s[i] as string)) i++;
    if (i >= s.length) {
      out.push({ t: 'end', lit: '' });
      return out;
    }
    if (isSpecial(s[i] as string)) {
      // the longest run of special characters that still names an operator
      let buf = '';
      let last: Tok | undefined;
      while (i < s.length && isSpecial(s[i] as string)) {
        const longer = buf + s[i];
        const op = SYMBOLS[longer];
        if (op) last = { t: op, lit: longer };
        else if (last) break;
        buf = longer;
        i++;
      }
      out.push(last ?? { t: 'error', lit: `error expected: keyword found '${buf}'` });
      continue;
    }
    let buf = '';
    while (i < s.length && !isSpecial(s[i] as string) && !isSpace(s[i] as string)) buf += s[i++];
    out.push({ t: buf === 'in' || buf === 'notin' ? buf : 'id', lit: buf });
  }
}

/** In a value position `in` and `notin` are plain identifiers. */
const asValue = (tok: Tok): Tok => (tok.t === 'in' || tok.t === 'notin' ? { ...tok, t: 'id' } : tok);

class LabelParser {
  private pos = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok {
    return asValue(this.toks[this.pos] as Tok);
  }
  private next(values = true): Tok {
    const tok = this.toks[this.pos++] as Tok;
    return values ? asValue(tok) : tok;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok.t === 'end') return reqs;
      if (tok.t !== 'id' && tok.t !== '!') {
        throw new Error(`found '${tok.lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`);
      }
      const sep = this.next();
      if (sep.t === 'end') return reqs;
      if (sep.t !== ',') throw new Error(`found '${sep.lit}', expected: ',' or 'end of string'`);
      const after = this.peek();
      if (after.t !== 'id' && after.t !== '!') {
        throw new Error(`found '${after.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let tok = this.next();
    let negated = false;
    if (tok.t === '!') {
      negated = true;
      tok = this.next();
    }
    if (tok.t !== 'id') throw new Error(`found '${tok.lit}', expected: identifier`);
    const key = tok.lit;
    const keyErrors = qualifiedNameErrors(key);
    if (keyErrors.length > 0) throw new Error(invalidValue('<nil>', key, keyErrors));
    const la = this.peek();
    if (negated || la.t === 'end' || la.t === ',') {
      return { key, operator: negated ? '!' : 'exists', values: [] };
    }
    const opTok = this.next(false);
    const operator = (['in', 'notin', '=', '==', '!=', 'gt', 'lt'] as const).find((o) => o === opTok.t);
    if (!operator) throw new Error(`found '${opTok.lit}', expected: ${BINARY_OPERATORS}`);
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
    return newRequirement(key, operator, [...new Set(values)].sort());
  }

  private valueSet(): string[] {
    const open = this.next();
    if (open.t !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const first = this.peek();
    if (first.t === ')') {
      this.next();
      return [''];
    }
    if (first.t !== 'id' && first.t !== ',') {
      throw new Error(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    const values: string[] = [];
    for (;;) {
      const tok = this.next();
      if (tok.t === 'id') {
        values.push(tok.lit);
        const la = this.peek();
        if (la.t === ',') continue;
        if (la.t === ')') break;
        throw new Error(`found '${la.lit}', expected: ',' or ')'`);
      }
      if (tok.t === ',') {
        if (values.length === 0) values.push('');
        const la = this.peek();
        if (la.t === ')') {
          values.push('');
          break;
        }
        if (la.t === ',') values.push('');
        continue;
      }
      throw new Error(`found '${tok.lit}', expected: ',', or identifier`);
    }
    if (this.next().t !== ')') throw new Error(`found '${first.lit}', expected: ')'`);
    return values;
  }

  private exactValue(): string[] {
    const la = this.peek();
    if (la.t === 'end' || la.t === ',') return [''];
    const tok = this.next();
    if (tok.t === 'id') return [tok.lit];
    throw new Error(`found '${tok.lit}', expected: identifier`);
  }
}

/** NewRequirement's checks: how many values an operator takes, and that each is a label value. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    throw new Error("values: Invalid value: \"\": for 'in', 'notin' operators, values set can't be empty");
  }
  if ((operator === '=' || operator === '==' || operator === '!=') && values.length !== 1) {
    throw new Error('values: Invalid value: "": exact-match compatibility requires one single value');
  }
  if (operator === 'gt' || operator === 'lt') {
    if (!/^-?\d+$/.test(values[0] ?? '')) {
      throw new Error(
        `values[0]: Invalid value: ${JSON.stringify(values[0] ?? '')}: for 'Gt', 'Lt' operators, the value must be an integer`,
      );
    }
    return { key, operator, values };
  }
  for (const [i, v] of values.entries()) {
    const errs = labelValueErrors(v);
    if (errs.length > 0) throw new Error(invalidValue(`values[${i}][${key}]`, v, errs));
  }
  return { key, operator, values };
}

function invalidValue(path: string, value: string, errs: string[]): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${errs.join('; ')}`;
}

/** Parses `?labelSelector=`; an empty string selects everything. */
export function parseLabelSelector(s: string): Parsed<LabelRequirement[]> {
  try {
    const value = new LabelParser(lex(s)).parse();
    return { ok: true, value: value.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** Requirement.Matches for every requirement. */
export function labelsMatch(sel: readonly LabelRequirement[], labels: Record<string, string> | undefined) {
  for (const r of sel) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const v = has ? (labels as Record<string, string>)[r.key] : undefined;
    switch (r.operator) {
      case 'in':
      case '=':
      case '==':
        if (!has || !r.values.includes(v as string)) return false;
        break;
      case 'notin':
      case '!=':
        if (has && r.values.includes(v as string)) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case '!':
        if (has) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v as string)) return false;
        const n = Number(v);
        const want = Number(r.values[0]);
        if (r.operator === 'gt' ? !(n > want) : !(n < want)) return false;
        break;
      }
    }
  }
  return true;
}
