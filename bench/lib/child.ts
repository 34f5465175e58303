/**
 * Runs one benchmark module in a process of its own (fresh heap, its own CPU and RSS figures, a crash that
 * cannot take the others with it): `tsx bench/lib/child.ts <p1-bringup|...> [--smoke]`.
 */
import { type BenchOptions, ROWS_PREFIX } from './bench.ts';

// started with the server's heap flags (run.ts), so the engine runs here as the server runs it

const name = process.argv[2] ?? '';
const smoke = process.argv.includes('--smoke');
// found at run time, by name (a smoke run's bundle of the benchmarks links each name to its bundled module)
const file = `../${name}.ts`;
const mod = (await import(file)) as { run: (o: BenchOptions) => Promise<unknown> };
const rows = await mod.run({
  smoke,
  root: process.getuid?.() === 0,
  log: (msg) => process.stderr.write(`  [${name}] ${msg}\n`),
});
process.stdout.write(`${ROWS_PREFIX}${JSON.stringify(rows)}\n`);
// grpc channels, ws clients and timers of a finished benchmark must not keep the process alive
process.exit(0);
