/**
 * `pnpm bench` (tsx bench/run.ts [--smoke [--part i/n]] [--only p1-bringup,p3-idle]): every benchmark in a process
 * of its own, one after another (the machine is small and shared: nothing runs beside a benchmark that it did not
 * start), then the table on stdout and bench/results.json (or bench/results.smoke.json) with the machine it ran
 * on, and (not for --smoke) docs/performance.md generated from it. A smoke run can be split: `--part i/n` runs
 * every n-th benchmark from the i-th, so n parts side by side (scripts/test-all.sh) run each exactly once.
 * Exits 1 only when a benchmark crashed; a missed target prints MISSED and is not a failure.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAP_FLAGS } from '@syncscope/server/heap';
import { NODE_BUNDLE_ENV } from '@syncscope/server/sim-node/protocol';
import { ownLocationBundle, serverBundle } from '@syncscope/test/support/server-bundle';
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
const argOf = (flag: string) =>
  process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined;
const part = smokePart(argOf('--part'));
const only =
  argOf('--only')?.split(',') ?? (part ? ALL.filter((_, i) => i % part.n === part.i - 1) : undefined);
const benches = ALL.filter((b) => !only || only.some((o) => b.startsWith(o)));

/** `--part i/n` of a smoke run (1 ≤ i ≤ n); a full run is never split, its figures are measured alone. */
function smokePart(arg: string | undefined): { i: number; n: number } | undefined {
  if (arg === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(arg);
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!smoke || !m || i < 1 || i > n) {
    console.error(`--part ${arg}: give i/n with 1 ≤ i ≤ n, with --smoke only`);
    process.exit(2);
  }
  return { i, n };
}
// a smoke run proves that each benchmark runs: its children and their simulated nodes start from bundles,
// without the TypeScript loader (seconds of CPU each, on a machine the test suite shares); a full run's children
// start from source through tsx
if (smoke) process.env[NODE_BUNDLE_ENV] ||= join(await serverBundle(), 'sim-node', 'main.mjs');
const child = smoke
  ? { cmd: process.execPath, entry: join(await smokeBundle(), 'lib', 'child.mjs') }
  : { cmd: TSX, entry: join(ROOT, 'bench', 'lib', 'child.ts') };

/** Every benchmark and the child that runs one, bundled: lib/child.mjs finds each by name, `<name>.ts` a link. */
async function smokeBundle(): Promise<string> {
  return ownLocationBundle('bench-smoke', ['bench/lib/child.ts', ...ALL.map((b) => `bench/${b}.ts`)], {
    salt: await readFile(fileURLToPath(import.meta.url)),
    outbase: 'bench',
    external: ['playwright-core'],
    splitting: true,
    finish: async (dir) => {
      for (const b of ALL) await symlink(`${b}.mjs`, join(dir, `${b}.ts`));
    },
  });
}

function runChild(name: string): Promise<{ rows: Row[]; error?: string; ms: number }> {
  const t0 = performance.now();
  const args = [...HEAP_FLAGS, child.entry, name, ...(smoke ? ['--smoke'] : [])];
  const proc = spawn(child.cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
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
// --only (or a smoke's --part) re-runs some benchmarks: their rows replace theirs in the last results, the others
// are kept (with their date)
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
