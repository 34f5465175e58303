import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { BoolQuery, compileQuery, cursorParam, KubeIntQuery } from './params.ts';

const read = compileQuery(Type.Object({ watch: BoolQuery(), limit: KubeIntQuery() }));

describe('compileQuery', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('reads %s as true, as strconv.ParseBool does', (v) => {
    expect(read({ watch: v })).toEqual({ value: { watch: true } });
  });

  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False', ''])('reads %j as false', (v) => {
    expect(read({ watch: v })).toEqual({ value: { watch: false } });
  });

  it.each(['yes', 'tRUE', '2', ' true'])('answers %j with a 400 naming the parameter', (v) => {
    const r = read({ watch: v });
    expect(r.error?.code).toBe(400);
    expect(r.error?.message).toBe(`invalid value for ?watch=${JSON.stringify(v)}: must be true or false`);
    expect(r.error?.details?.causes?.[0]?.field).toBe('watch');
  });

  it('reads an apiserver integer with its sign, empty as absent, and refuses others in its words', () => {
    expect(read({ limit: '-3' })).toEqual({ value: { limit: -3 } });
    expect(read({ limit: '' })).toEqual({ value: {} });
    expect(read({ limit: '1e3' }).error?.message).toBe('limit: Invalid value: "1e3": must be an integer');
  });
});

describe('cursorParam', () => {
  it('reads a node-rows cursor, and nothing when absent', () => {
    expect(cursorParam('lx3k9a.0')).toBe('lx3k9a.0');
    expect(cursorParam('0.123456789012345')).toBe('0.123456789012345');
    expect(cursorParam(undefined)).toBeUndefined();
  });

  it.each(['', '1.', '.1', 'a.b', '1.2.3', '1.1234567890123456', '12345678901234567.1', ' ', 'A.1'])(
    'answers %j with a 400 naming since',
    (v) => {
      const r = cursorParam(v);
      expect(r).toMatchObject({
        code: 400,
        message: `invalid value for ?since=${JSON.stringify(v)}: must be a cursor this server gave, "<run>.<batch>"`,
        details: { causes: [{ field: 'since', reason: 'FieldValueInvalid' }] },
      });
    },
  );
});
