import { describe, expect, it } from 'vitest';
import { fieldsMatch, labelsMatch, parseFieldSelector, parseLabelSelector } from './selectors.ts';

const labels = { app: 'web', tier: 'front', n: '7' };

function select(sel: string, l: Record<string, string> | undefined = labels): boolean {
  const parsed = parseLabelSelector(sel);
  if (!parsed.ok) throw new Error(parsed.message);
  return labelsMatch(parsed.value, l);
}

function labelError(sel: string): string {
  const parsed = parseLabelSelector(sel);
  if (parsed.ok) throw new Error(`${sel} parsed`);
  return parsed.message;
}

describe('label selectors', () => {
  it('selects by every operator as the API server does', () => {
    expect(select('')).toBe(true);
    expect(select('app=web')).toBe(true);
    expect(select('app==web')).toBe(true);
    expect(select('app=db')).toBe(false);
    expect(select('app!=db')).toBe(true);
    expect(select('app!=web')).toBe(false);
    expect(select('missing!=x')).toBe(true);
    expect(select('app in (db, web)')).toBe(true);
    expect(select('app in (db)')).toBe(false);
    expect(select('app notin (db)')).toBe(true);
    expect(select('missing notin (db)')).toBe(true);
    expect(select('app notin (web,db)')).toBe(false);
    expect(select('tier')).toBe(true);
    expect(select('missing')).toBe(false);
    expect(select('!missing')).toBe(true);
    expect(select('!tier')).toBe(false);
    expect(select('n>5')).toBe(true);
    expect(select('n<5')).toBe(false);
    expect(select('app>5')).toBe(false);
    expect(select('app=web,tier=front')).toBe(true);
    expect(select('app=web,tier=back')).toBe(false);
    expect(select('app in (web),!missing, tier')).toBe(true);
    expect(select('app=web', {})).toBe(false);
    expect(select('!app', {})).toBe(true);
    // `in` and `notin` are values where a value is expected
    expect(select('app in (in)', { app: 'in' })).toBe(true);
    expect(select('app=', { app: '' })).toBe(true);
    expect(select('example.com/role=x', { 'example.com/role': 'x' })).toBe(true);
  });

  it('refuses what labels.Parse refuses, in its words', () => {
    expect(labelError('a in b')).toBe("unable to parse requirement: found 'b' expected: '('");
    expect(labelError('a in (b')).toBe("unable to parse requirement: found '', expected: ',' or ')'");
    expect(labelError('a b')).toBe(
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(labelError('a=b c')).toBe("found 'c', expected: ',' or 'end of string'");
    expect(labelError('a=b,')).toBe("found '', expected: identifier after ','");
    expect(labelError(',a')).toBe("found ',', expected: !, identifier, or 'end of string'");
    expect(labelError('!')).toBe("unable to parse requirement: found '', expected: identifier");
    expect(labelError('a=(')).toBe("unable to parse requirement: found '(', expected: identifier");
    expect(labelError('a>b')).toBe(
      `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    expect(labelError('Bad_Key!x=1')).toMatch(/^unable to parse requirement: /);
    expect(labelError('-bad=1')).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    expect(labelError('a=-v')).toMatch(
      /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "-v": a valid label must be an empty string/,
    );
    expect(labelError(`a=${'x'.repeat(64)}`)).toMatch(/must be no more than 63 characters/);
  });
});

const POD_FIELDS = ['metadata.name', 'status.phase', 'spec.nodeName'];

function fields(sel: string, values: Record<string, string>): boolean {
  const parsed = parseFieldSelector(sel, POD_FIELDS);
  if (!parsed.ok) throw new Error(parsed.message);
  return fieldsMatch(parsed.value, (f) => values[f] ?? '');
}

describe('field selectors', () => {
  const pod = { 'metadata.name': 'web', 'status.phase': 'Running', 'spec.nodeName': 'node-a' };

  it('matches =, == and != terms, all of them', () => {
    expect(fields('', pod)).toBe(true);
    expect(fields('metadata.name=web', pod)).toBe(true);
    expect(fields('metadata.name==web', pod)).toBe(true);
    expect(fields('metadata.name!=web', pod)).toBe(false);
    expect(fields('spec.nodeName=node-a,status.phase!=Failed,status.phase!=Succeeded', pod)).toBe(true);
    expect(fields('spec.nodeName=node-a,status.phase=Pending', pod)).toBe(false);
    expect(fields('metadata.name=a\\,b', { 'metadata.name': 'a,b' })).toBe(true);
  });

  it('refuses an unknown field and a term without an operator', () => {
    const unknown = parseFieldSelector('spec.foo=x', POD_FIELDS);
    expect(unknown).toEqual({ ok: false, message: 'field label not supported: spec.foo' });
    const bad = parseFieldSelector('metadata.name', POD_FIELDS);
    expect(bad).toEqual({
      ok: false,
      message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
    });
    expect(parseFieldSelector('metadata.name=a\\x', POD_FIELDS)).toEqual({
      ok: false,
      message: 'invalid escape sequence: \\x',
    });
  });
});
