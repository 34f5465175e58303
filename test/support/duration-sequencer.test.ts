import { describe, expect, it } from 'vitest';
import { shardByDuration } from './duration-sequencer.ts';

const files = (paths: string[]) => paths.map((path) => ({ key: path, project: 'e2e', path }));

describe('shardByDuration', () => {
  it('covers every file once and balances the shards by time, not by count', () => {
    const durations = { e2e: { 'a.ts': 100, 'b.ts': 60, 'c.ts': 50, 'd.ts': 10, 'e.ts': 10, 'f.ts': 10 } };
    const all = files(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts']);
    const shards = [1, 2].map((i) => shardByDuration(all, durations, i, 2));
    expect(shards.flat().sort()).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts', 'f.ts']);
    // by count (3 + 3) one shard could take a, b, c (210 s) and the other 30 s; by time: 120 and 120
    const sum = (s: string[]) =>
      s.reduce((n, f) => n + (durations.e2e[f as keyof typeof durations.e2e] ?? 0), 0);
    expect(shards.map(sum)).toEqual([120, 120]);
  });

  it('gives the same split whatever order the files are listed in', () => {
    const durations = { e2e: { 'a.ts': 5, 'b.ts': 5, 'c.ts': 5 } };
    const one = shardByDuration(files(['a.ts', 'b.ts', 'c.ts']), durations, 1, 2);
    const other = shardByDuration(files(['c.ts', 'a.ts', 'b.ts']), durations, 1, 2);
    expect(other).toEqual(one);
  });

  it('counts a file it has no record of as its project’s median', () => {
    const durations = { e2e: { 'a.ts': 30, 'b.ts': 20, 'c.ts': 10 } };
    const all = files(['a.ts', 'b.ts', 'c.ts', 'new.ts']);
    // new.ts weighs 20: a (30) | b (20), new (20) to the lighter | c (10) to the lighter: 40 and 40
    expect(shardByDuration(all, durations, 1, 2)).toEqual(['a.ts', 'c.ts']);
    expect(shardByDuration(all, durations, 2, 2)).toEqual(['b.ts', 'new.ts']);
  });
});
