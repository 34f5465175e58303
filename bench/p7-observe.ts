/**
 * P7 observe mode's cost: (a) following a kubelet log growing at 1,000 lines/s (p7-follow.ts), (b) the
 * observer's relist over 110 pods against the bare list calls (p7-relist.ts), (c) the same with the API watch
 * (p7-watch.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions } from './lib/bench.ts';
import type { Row } from './lib/table.ts';
import { followRows } from './p7-follow.ts';
import { relistRows } from './p7-relist.ts';
import { watchRows } from './p7-watch.ts';

export async function run(o: BenchOptions): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-follow-'));
  try {
    return [...(await followRows(o, dir)), ...(await relistRows(o)), ...(await watchRows(o))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
