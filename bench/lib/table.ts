/**
 * One measured figure. `ratio` is value / floor when the figure is compared with a floor measured side by side
 * in the same run; `target` is the bound it must meet ("≤ 1.25×", "≤ 5 %"), checked on `ratio` when there is
 * a floor, else on `value`. status: ok | MISSED | info (nothing to meet) | skipped (could not run here).
 */
export interface Row {
  bench: string;
  metric: string;
  value: number | null;
  unit: string;
  floor?: number;
  ratio?: number;
  target?: { op: '<=' | '>='; bound: number; on: 'ratio' | 'value' };
  status: 'ok' | 'MISSED' | 'info' | 'skipped';
  note?: string;
  /** when the run that measured it ended (ISO); set by run.ts, kept when `--only` re-runs other benchmarks */
  at?: string;
}

import { round } from '@syncscope/test/support/stats';

export type RowInput = Omit<Row, 'status' | 'ratio'> & { status?: Row['status'] };

/** Builds a row, computing ratio and status from value, floor and target. */
export function row(r: RowInput): Row {
  const out: Row = { ...r, status: r.status ?? 'info' };
  if (r.value !== null && r.floor !== undefined && r.floor > 0) out.ratio = round(r.value / r.floor);
  if (out.status !== 'skipped' && r.target && r.value !== null) {
    const x = r.target.on === 'ratio' ? out.ratio : r.value;
    if (x === undefined || !Number.isFinite(x)) out.status = 'MISSED';
    else out.status = (r.target.op === '<=' ? x <= r.target.bound : x >= r.target.bound) ? 'ok' : 'MISSED';
  }
  if (out.value !== null) out.value = round(out.value);
  if (out.floor !== undefined) out.floor = round(out.floor);
  return out;
}

export function skipped(bench: string, metric: string, note: string): Row {
  return { bench, metric, value: null, unit: '', status: 'skipped', note };
}

function fmtTarget(r: Row): string {
  if (!r.target) return '';
  const op = r.target.op === '<=' ? '≤' : '≥';
  return r.target.on === 'ratio' ? `${op} ${r.target.bound}×` : `${op} ${r.target.bound} ${r.unit}`;
}

function cells(r: Row): string[] {
  return [
    r.bench,
    r.metric,
    r.value === null ? '—' : `${r.value} ${r.unit}`.trim(),
    r.floor === undefined ? '' : `${r.floor} ${r.unit}`.trim(),
    r.ratio === undefined ? '' : `${r.ratio}×`,
    fmtTarget(r),
    r.status === 'info' ? '' : r.status,
  ];
}

const HEAD = ['bench', 'metric', 'value', 'floor', 'ratio', 'target', 'status'];

/** Fixed-width text table for the terminal. */
export function formatTable(rows: readonly Row[]): string {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((s, i) => s.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

/** The same table as Markdown (results.json's `markdown`). */
export function formatMarkdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  return [
    `| ${HEAD.join(' | ')} |`,
    `|${HEAD.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cells(r).map(esc).join(' | ')} |`),
  ].join('\n');
}
