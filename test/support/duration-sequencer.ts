/**
 * Shards by time, not by file count: `vitest --shard=i/n` gives each shard the files that balance the shards'
 * summed durations (longest file first, each to the shard with the least so far), from test/durations.json
 * (seconds per file, written by `node scripts/test-durations.mjs` from a run's JSON reports). A file the
 * record does not know counts as its project's median. Every shard process computes the same split from the
 * same file list, so the shards cover each file exactly once. Within a shard, vitest's own order.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestSequencer, TestSpecification, Vitest } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/** test/durations.json: project name → file (relative to the root) → seconds. */
export type Durations = Record<string, Record<string, number>>;

function readDurations(root: string): Durations {
  try {
    return JSON.parse(readFileSync(join(root, 'test', 'durations.json'), 'utf8')) as Durations;
  } catch {
    return {};
  }
}

function median(xs: number[]): number {
  if (xs.length === 0) return 1;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 1;
}

/**
 * The files of shard `index` (1-based) of `count`: longest-processing-time-first over the known durations.
 * `files` are [project, path] pairs; the split depends only on them and on `durations`.
 */
export function shardByDuration<T>(
  files: { key: T; project: string; path: string }[],
  durations: Durations,
  index: number,
  count: number,
): T[] {
  const guess = new Map<string, number>();
  const seconds = (f: { project: string; path: string }): number => {
    const known = durations[f.project]?.[f.path];
    if (known !== undefined) return known;
    let g = guess.get(f.project);
    if (g === undefined) {
      g = median(Object.values(durations[f.project] ?? {}));
      guess.set(f.project, g);
    }
    return g;
  };
  const sized = files.map((f) => ({ f, s: seconds(f) }));
  sized.sort((a, b) => b.s - a.s || (a.f.path < b.f.path ? -1 : a.f.path > b.f.path ? 1 : 0));
  const load = Array.from({ length: count }, () => 0);
  const mine: T[] = [];
  for (const { f, s } of sized) {
    let least = 0;
    for (let i = 1; i < count; i++) if ((load[i] ?? 0) < (load[least] ?? 0)) least = i;
    load[least] = (load[least] ?? 0) + s;
    if (least === index - 1) mine.push(f.key);
  }
  return mine;
}

export default class DurationSequencer implements TestSequencer {
  private readonly base: BaseSequencer;
  constructor(private readonly ctx: Vitest) {
    this.base = new BaseSequencer(ctx);
  }

  shard(files: TestSpecification[]): TestSpecification[] {
    const { root, shard } = this.ctx.config;
    if (!shard) return files;
    const listed = files.map((spec) => ({
      key: spec,
      project: spec.project.name,
      path: relative(root, spec.moduleId).split('\\').join('/'),
    }));
    return shardByDuration(listed, readDurations(root), shard.index, shard.count);
  }

  sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return this.base.sort(files);
  }
}
