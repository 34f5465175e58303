import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { BoolQuery, compileQuery, KubeIntQuery } from './params.ts';

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
