/**
 * docs/performance.md is what `pnpm bench` last measured: regenerated here from bench/results.json and compared
 * (a stale page fails; re-run `pnpm bench`, or `pnpm bench --only pN-` for the benchmark that changed). Beside
 * that, the generator on synthetic rows of every shape bench/lib/table.ts makes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Machine } from '../../bench/lib/machine.ts';
import { PERFORMANCE_DOC, performanceDoc, type Results } from '../../bench/lib/performance-doc.ts';
import { row, skipped } from '../../bench/lib/table.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = `${ROOT}bench/results.json`;
const haveResults = existsSync(RESULTS);

const MACHINE: Machine = {
  nproc: 2,
  cpuModel: 'Test CPU',
  ramMB: 4096,
  node: 'v22.0.0',
  containerd: 'not installed',
  kernel: '6.1',
  loadavg: [0.5, 0.4, 0.3],
};

/** The lines of the page's table, header and separator left out. */
function tableLines(page: string): string[] {
  return page.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| bench |'));
}

describe('docs/performance.md', () => {
  it.skipIf(!haveResults)(
    haveResults
      ? 'is what bench/results.json says'
      : 'is what bench/results.json says (skipped: there is no bench/results.json here; `pnpm bench` writes it)',
    () => {
      const results = JSON.parse(readFileSync(RESULTS, 'utf8')) as Results & { smoke?: boolean };
      expect(results.smoke, 'bench/results.json is from a --smoke run').not.toBe(true);
      const page = readFileSync(`${ROOT}${PERFORMANCE_DOC}`, 'utf8');
      expect(page, 'docs/performance.md is stale: run `pnpm bench` (or `--only pN-`)').toBe(
        performanceDoc(results),
      );
    },
  );
});

describe('performanceDoc', () => {
  const date = '2026-11-27T15:00:00.000Z';
  const rows = [
    row({
      bench: 'P1',
      metric: '50 pods to Running, engine vs raw CRI',
      value: 5863,
      floor: 4151,
      unit: 'ms',
      target: { op: '<=', bound: 1.25, on: 'ratio' },
      note: 'median of 3',
    }),
    row({
      bench: 'P3',
      metric: 'engine CPU, 1000 pods idle',
      value: 2.98,
      unit: '%',
      target: { op: '<=', bound: 5, on: 'value' },
    }),
    row({
      bench: 'P4',
      metric: 'events/s | slowest client',
      value: 24890,
      unit: 'ev/s',
      target: { op: '>=', bound: 20000, on: 'value' },
    }),
    row({ bench: 'P4', metric: 'server RSS growth', value: 76, unit: 'MB' }),
    row({ bench: 'P11', metric: 'paging vs ring', value: 5.2, floor: 10.5, unit: 'ms' }),
    skipped('P2', 'relist, 200 pods, containerd', 'needs root'),
    {
      bench: 'P9',
      metric: 'p9-table CRASHED (exited with 1)',
      value: null,
      unit: '',
      status: 'MISSED' as const,
    },
  ];
  const page = performanceDoc({ date, machine: MACHINE, rows });
  const lines = tableLines(page);

  it('gives one table row per figure, with the command that measures it again', () => {
    expect(lines).toHaveLength(rows.length);
    for (const [i, r] of rows.entries()) {
      expect(lines[i]).toContain(`| ${r.bench} |`);
      expect(lines[i]).toContain(`\`pnpm bench --only ${r.bench.toLowerCase()}-\``);
    }
  });

  it('shows a ratio to a floor, its goal and whether it was met', () => {
    expect(lines[0]).toBe(
      '| P1 | 50 pods to Running, engine vs raw CRI | ≤ 1.25× the floor | 5863 ms, floor 4151 ms (1.41×); median of 3 | **no** | `pnpm bench --only p1-` |',
    );
    expect(lines[4]).toContain('| 5.2 ms, floor 10.5 ms (0.495×) |');
  });

  it('shows a goal on the value itself, either way', () => {
    expect(lines[1]).toContain('| ≤ 5 % | 2.98 % | yes |');
    expect(lines[2]).toContain('| ≥ 20000 ev/s | 24890 ev/s | yes |');
  });

  it('escapes a | inside a cell', () => {
    expect(lines[2]).toContain('events/s \\| slowest client');
  });

  it('leaves goal and met empty for a figure shown for scale', () => {
    expect(lines[3]).toBe('| P4 | server RSS growth |  | 76 MB |  | `pnpm bench --only p4-` |');
  });

  it('says a skipped figure was not run here, and why', () => {
    expect(lines[5]).toBe(
      '| P2 | relist, 200 pods, containerd |  | —; needs root | not run here | `pnpm bench --only p2-` |',
    );
  });

  it('shows a crashed benchmark as not met, with no value', () => {
    expect(lines[6]).toContain('| — | **no** |');
  });

  it('gives the date and machine in one line, and counts what was missed', () => {
    expect(page).toContain(
      'Measured 2026-11-27 on 2 × Test CPU, 4 GB RAM, Linux 6.1, Node v22.0.0, containerd not installed, load 0.5 0.4 0.3. 7 figures, 2 not met.',
    );
  });

  it('gives the first and last date when --only runs measured some rows later', () => {
    const later = rows.map((r, i) => ({ ...r, at: i === 0 ? '2026-11-29T10:00:00Z' : date }));
    expect(performanceDoc({ date, machine: MACHINE, rows: later })).toContain(
      'Measured 2026-11-27 to 2026-11-29 on',
    );
  });

  it('is a pure function of the results', () => {
    expect(performanceDoc({ date, machine: MACHINE, rows })).toBe(page);
  });
});
