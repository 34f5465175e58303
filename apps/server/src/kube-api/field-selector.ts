/**
 * Field selectors as the API server reads `?fieldSelector=` (apimachinery fields.ParseSelector): terms joined
 * by ','; each is `field=v`, `field==v` or `field!=v`, with `\,` `\=` `\\` escapes. Which fields a resource
 * allows is the caller's: anything else is "field label not supported: <field>", as the API server's
 * conversion answers. Pure.
 */
import type { Parsed } from './label-selector.ts';

export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

/** Splits on `sep` where it is not escaped with a backslash. */
function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[++i];
      continue;
    }
    if (c === sep) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function unescapeValue(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i] as string;
    if (c !== '\\') {
      if (c === ',' || c === '=')
        throw new Error(`invalid field selector: unescaped character '${c}' in value`);
      out += c;
      continue;
    }
    const n = v[++i];
    if (n !== '\\' && n !== ',' && n !== '=') throw new Error(`invalid escape sequence: \\${n ?? ''}`);
    out += n;
  }
  return out;
}

/**
 * Parses `?fieldSelector=`; `supported` lists the fields the resource can be selected by (anything else:
 * "field label not supported: <field>", as the API server's conversion answers).
 */
export function parseFieldSelector(s: string, supported: readonly string[]): Parsed<FieldRequirement[]> {
  const out: FieldRequirement[] = [];
  if (s.trim() === '') return { ok: true, value: out };
  for (const term of splitUnescaped(s, ',')) {
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    const field = m?.[1];
    if (!m || field === undefined) {
      return { ok: false, message: `invalid selector: '${s}'; can't understand '${term}'` };
    }
    if (!supported.includes(field)) return { ok: false, message: `field label not supported: ${field}` };
    try {
      out.push({ field, operator: m[2] as FieldRequirement['operator'], value: unescapeValue(m[3] ?? '') });
    } catch (e) {
      return { ok: false, message: (e as Error).message };
    }
  }
  return { ok: true, value: out };
}

/** Does an object whose selectable fields `get` reads match every term? */
export function fieldsMatch(sel: readonly FieldRequirement[], get: (field: string) => string): boolean {
  for (const r of sel) {
    const v = get(r.field);
    if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
  }
  return true;
}
