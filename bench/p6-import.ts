/**
 * P6 kubelet-log import: the import-log command on a ≥ 100 MB log made from the real sample logs (repeated and
 * re-stamped, bench/lib/kubelet-log-gen.ts), its NDJSON thrown away and its raw-line index written to a file
 * (`--raw-index`: a record per line no rule reads, with its byte offsets, not trace events), against a bare
 * pass that only reads the same file the way the command does (1 MiB blocks, its BlockDecoder) and splits it
 * into lines (bench/lib/split-lines.ts), both as processes of their own started the same way
 * (`node scripts/bundled.mjs TOOL`, what `pnpm -s import-log` runs; each bundle is built before the clock starts),
 * one after the other, best of two each. Beside them, for scale and without a target, the pass most Node programs
 * write (node:readline over a read stream), which is about twice as slow as the floor, and the floor plus the
 * least of the import's output (`split-lines --emit`: each line written as one log.raw event, none understood),
 * which shows how much of the 1/4 the output alone takes. Targets: throughput ≥ 1/4 of the bare pass, ≥ 50
 * MB/s, peak RSS of the import ≤ 200 MB. P15 at this size (the server's upload limit is 64 MiB): the same log
 * read with `--explain` (the model beside it instead of the trace) takes ≤ 1.5× the import that writes the
 * trace. Then a 2 GB log made on the fly and piped to `import-log -` (never stored): the import's peak RSS must
 * stay ≤ 200 MB whatever the size; its MB/s is shown, the generator sharing the machine with it. Smoke: a 2 MB
 * log, one run each, no 2 GB run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { HEAP_FLAGS } from '@syncscope/server/heap';
import type { BenchOptions } from './lib/bench.ts';
import { streamBigLog, writeBigLog } from './lib/kubelet-log-gen.ts';
import { ROOT } from './lib/spawn.ts';
import { type Row, row, skipped } from './lib/table.ts';

const MB = 1e6;

/** 2 GB, streamed */
const STREAMED = 2.1e9;

/**
 * Runs `node scripts/bundled.mjs <tool> <args>` under /usr/bin/time: wall seconds and peak RSS (MB). `feed`, when
 * given, writes the process's stdin (and ends it).
 */
function timed(
  tool: 'import-log' | 'split-lines',
  args: string[],
  feed?: (stdin: Writable) => Promise<unknown>,
): Promise<{ s: number; rssMB: number; stderr: string }> {
  const p = spawn(
    '/usr/bin/time',
    [
      '-f',
      '@@time %e %M',
      process.execPath,
      ...HEAP_FLAGS,
      join(ROOT, 'scripts', 'bundled.mjs'),
      tool,
      ...args,
    ],
    {
      cwd: ROOT,
      stdio: [feed ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    },
  );
  if (feed && p.stdin) void feed(p.stdin).catch(() => undefined);
  let err = '';
  p.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return new Promise((resolve, reject) => {
    p.on('close', (code) => {
      const m = /@@time ([\d.]+) (\d+)/.exec(err);
      if (!m) reject(new Error(`${tool} exited ${code}: ${err.slice(-500)}`));
      else resolve({ s: Number(m[1]), rssMB: (Number(m[2]) * 1024) / MB, stderr: err });
    });
  });
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-bench-import-'));
  try {
    const file = join(dir, 'kubelet.log');
    const { bytes, copies } = await writeBigLog(file, o.smoke ? 2 * MB : 105 * MB);
    o.log(`log: ${(bytes / MB).toFixed(1)} MB (${copies} copies of the samples)`);
    const rounds = o.smoke ? 1 : 2;
    // builds each bundle when its sources changed, outside the timed runs
    await timed('split-lines', ['/dev/null']);
    await timed('import-log', ['/dev/null']).catch(() => undefined);
    let bare = Number.POSITIVE_INFINITY;
    let rl = Number.POSITIVE_INFINITY;
    let emit = Number.POSITIVE_INFINITY;
    let imp = Number.POSITIVE_INFINITY;
    let rss = 0;
    let plain = Number.POSITIVE_INFINITY;
    let explained = Number.POSITIVE_INFINITY;
    for (let i = 0; i < rounds; i++) {
      const b = await timed('split-lines', [file]);
      const l = await timed('split-lines', ['--readline', file]);
      const e = await timed('split-lines', ['--emit', file]);
      const r = await timed('import-log', [
        file,
        '--year',
        '2024',
        '--raw-index',
        join(dir, 'raw-index.ndjson'),
      ]);
      // the model beside the log (P15 at the CLI's size): the same import with --explain, against it without
      const t = await timed('import-log', [file, '--year', '2024']);
      const x = await timed('import-log', [file, '--year', '2024', '--explain']);
      o.log(
        `round ${i + 1}: bare split ${b.s} s, readline ${l.s} s, split and emit ${e.s} s, import ${r.s} s, import peak RSS ${r.rssMB.toFixed(0)} MB; trace only ${t.s} s, explained ${x.s} s`,
      );
      plain = Math.min(plain, t.s);
      explained = Math.min(explained, x.s);
      o.log(`import summary: ${r.stderr.split('\n').slice(0, 3).join(' | ')}`);
      bare = Math.min(bare, b.s);
      rl = Math.min(rl, l.s);
      emit = Math.min(emit, e.s);
      imp = Math.min(imp, r.s);
      rss = Math.max(rss, r.rssMB);
    }
    const streamed = o.smoke ? undefined : await streamedRun(o);
    const mbps = bytes / MB / imp;
    const bareMbps = bytes / MB / bare;
    const size = `${(bytes / MB).toFixed(0)} MB`;
    return [
      row({
        bench: 'P6',
        metric: `import-log throughput (raw-line index written), ${size} kubelet log, vs a bare read-and-split pass (best of ${rounds})`,
        value: mbps,
        floor: bareMbps,
        unit: 'MB/s',
        target: { op: '>=', bound: 0.25, on: 'ratio' },
      }),
      row({
        bench: 'P6',
        metric: `import-log throughput, ${size}, vs node:readline over the same file (for scale, no target)`,
        value: mbps,
        floor: bytes / MB / rl,
        unit: 'MB/s',
      }),
      row({
        bench: 'P6',
        metric: `split and emit (every line one log.raw event, none understood, one thread), ${size}, vs the bare pass (for scale, no target)`,
        value: bytes / MB / emit,
        floor: bareMbps,
        unit: 'MB/s',
      }),
      row({
        bench: 'P6',
        metric: `import-log throughput, ${size}`,
        value: mbps,
        unit: 'MB/s',
        target: { op: '>=', bound: 50, on: 'value' },
      }),
      row({
        bench: 'P6',
        metric: `import-log peak RSS, ${size}`,
        value: rss,
        unit: 'MB',
        target: { op: '<=', bound: 200, on: 'value' },
      }),
      row({
        bench: 'P15',
        metric: `import-log --explain of the ${size} log vs the same import writing its trace (best of ${rounds})`,
        value: explained * 1000,
        floor: plain * 1000,
        unit: 'ms',
        target: { op: '<=', bound: 1.5, on: 'ratio' },
      }),
      ...(streamed
        ? [
            row({
              bench: 'P6',
              metric: `import-log throughput, ${streamed.size} log made on the fly through stdin (generator on the same cores)`,
              value: streamed.mbps,
              unit: 'MB/s',
            }),
            row({
              bench: 'P6',
              metric: `import-log peak RSS, ${streamed.size} log through stdin`,
              value: streamed.rssMB,
              unit: 'MB',
              target: { op: '<=', bound: 200, on: 'value' },
            }),
          ]
        : [skipped('P6', 'import-log peak RSS, 2 GB log through stdin', 'not in smoke')]),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The import of a 2 GB log piped to its stdin as it is made: wall MB/s and the import's peak RSS. */
async function streamedRun(o: BenchOptions): Promise<{ size: string; mbps: number; rssMB: number }> {
  let bytes = 0;
  const r = await timed('import-log', ['-', '--year', '2024'], async (stdin) => {
    bytes = (await streamBigLog(stdin, STREAMED)).bytes;
  });
  const size = `${(bytes / 1e9).toFixed(1)} GB`;
  o.log(`streamed ${size}: ${r.s} s, import peak RSS ${r.rssMB.toFixed(0)} MB`);
  o.log(`import summary: ${r.stderr.split('\n').slice(0, 3).join(' | ')}`);
  return { size, mbps: bytes / MB / r.s, rssMB: r.rssMB };
}
