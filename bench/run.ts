/**
 * `pnpm bench` (tsx bench/run.ts [--smoke] [--only p1,p3]): every benchmark in a process of its own, one after
 * another (the machine is small and shared: nothing runs beside a benchmark that it did not start), then the
 * table on stdout and bench/results.json (or bench/results.smoke.json) with the machine it ran on, and (not for
 * --smoke) docs/performance.md generated from it.
 * Exits 1 only when a benchmark crashed; a missed target prints MISSED and is not a failure.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEAP_FLAGS } from '@syncscope/server/heap';
import { NODE_BUNDLE_ENV } from '@syncscope/server/sim-node/protocol';
import { serverBundle } from '@syncscope/test/support/server-bundle';
import { ROWS_PREFIX } from './lib/bench.ts';
import { describeMachine, machine } from './lib/machine.ts';
import { PERFORMANCE_DOC, performanceDoc } from './lib/performance-doc.ts';
import { ROOT, TSX } from './lib/spawn.ts';
import { formatMarkdown, formatTable, type Row } from './lib/table.ts';

const ALL = [
  'p1-bringup',
  'p2-relist',
  'p3-idle',
  'p4-stream',
  'p5-ui',
  'p5c-loaded',
  'p6-import',
  'p6-ui',
  'p7-observe',
  'p8-otlp',
  'p9-table',
  'p10-watch',
  'p11-journal',
  'p12-bounds',
  'p13-streams',
  'p14-import-load',
  'p15-explain',
  'p16-exec',
];
const smoke = process.argv.includes('--smoke');
const onlyArg = process.argv[process.argv.indexOf('--only') + 1];
const only = process.argv.includes('--only') && onlyArg ? onlyArg.split(',') : undefined;
const benches = ALL.filter((b) => !only || only.some((o) => b.startsWith(o)));
// a smoke run proves that each benchmark runs: its simulated nodes start from the tests' bundle, without the
// TypeScript loader (seconds of CPU each, on a machine the test suite shares)
if (smoke) process.env[NODE_BUNDLE_ENV] ||= join(await serverBundle(), 'sim-node', 'main.mjs');

function runChild(name: string): Promise<{ rows: Row[]; error?: string; ms: number }> {
  const t0 = performance.now();
  const args = [...HEAP_FLAGS, join(ROOT, 'bench', 'lib', 'child.ts'), name, ...(smoke ? ['--smoke'] : [])];
  const proc = spawn(TSX, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  return new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      const ms = performance.now() - t0;
      const line = out.split('\n').find((l) => l.startsWith(ROWS_PREFIX));
      if (code === 0 && line) resolve({ rows: JSON.parse(line.slice(ROWS_PREFIX.length)) as Row[], ms });
      else resolve({ rows: [], error: `exited with ${signal ?? code}`, ms });
    });
  });
}

const m = machine();
console.error(`bench${smoke ? ' --smoke' : ''} on ${describeMachine(m)}`);
const rows: Row[] = [];
const crashed: string[] = [];
const t0 = performance.now();
for (const b of benches) {
  console.error(`== ${b}`);
  const r = await runChild(b);
  console.error(`   ${b}: ${r.error ?? 'done'} in ${(r.ms / 1000).toFixed(1)} s`);
  if (r.error) {
    crashed.push(b);
    rows.push({
      bench: b.slice(0, 2).toUpperCase(),
      metric: `${b} CRASHED (${r.error})`,
      value: null,
      unit: '',
      status: 'MISSED',
    });
  }
  rows.push(...r.rows);
}
const totalS = (performance.now() - t0) / 1000;

console.log(
  `\nSyncscope bench${smoke ? ' (smoke: tiny sizes, figures not meaningful)' : ''} — ${describeMachine(m)}\n`,
);
console.log(formatTable(rows));
const missed = rows.filter((r) => r.status === 'MISSED').length;
console.log(`\n${rows.length} figures, ${missed} MISSED, ${crashed.length} crashed, ${totalS.toFixed(0)} s`);

const file = join(ROOT, 'bench', smoke ? 'results.smoke.json' : 'results.json');
const date = new Date().toISOString();
for (const r of rows) r.at = date;
// --only re-runs some benchmarks: their rows replace theirs in the last results, the others are kept (with their date)
if (only && existsSync(file)) {
  const prev = JSON.parse(readFileSync(file, 'utf8')) as { date: string; rows: Row[] };
  const rerun = new Set(rows.map((r) => r.bench));
  rows.unshift(...prev.rows.filter((r) => !rerun.has(r.bench)).map((r) => ({ ...r, at: r.at ?? prev.date })));
  rows.sort((a, b) => a.bench.localeCompare(b.bench, 'en', { numeric: true }));
}
writeFileSync(
  file,
  `${JSON.stringify({ date, smoke, machine: m, durationS: Math.round(totalS), rows, markdown: formatMarkdown(rows) }, null, 2)}\n`,
);
console.log(`wrote ${file}`);
if (!smoke) {
  writeFileSync(join(ROOT, PERFORMANCE_DOC), performanceDoc({ date, machine: m, rows }));
  console.log(`wrote ${PERFORMANCE_DOC}`);
}
process.exit(crashed.length > 0 ? 1 : 0);
