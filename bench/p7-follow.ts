/**
 * P7 (a): following a kubelet log that grows at 1,000 lines/s. The follower runs alone in a child process
 * (p7-follow-child.ts) and reports its own CPU time; this process writes the lines (re-stamped copies of the
 * sample logs, as P6 makes them; 10 lines every 10 ms, caught up to the clock). Measured: the follower idle on a
 * file that does not grow, then following the growing file by polling (the default) and with fs.watch added.
 * Target: ≤ 3 % of a core while following.
 */
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { killLine } from '@syncscope/server/observe/follow-testing';
import type { BenchOptions } from './lib/bench.ts';
import { writeBigLog } from './lib/kubelet-log-gen.ts';
import { ROOT, spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

const RATE = 1_000;
const SAMPLES = join(ROOT, 'packages', 'core', 'src', 'kubelet-log', 'testdata');

interface Report {
  cpuMs: number;
  wallMs: number;
  events: number;
  lines: number;
}

/** Lines to write: the sample logs re-stamped (P6's generator), or made-up kill lines if the samples are absent. */
async function sourceLines(dir: string, n: number): Promise<{ lines: string[]; real: boolean }> {
  const real = existsSync(SAMPLES) && readdirSync(SAMPLES).some((f) => f.endsWith('.log'));
  if (!real) return { lines: Array.from({ length: n }, (_, i) => killLine(i)), real };
  const file = join(dir, 'source.log');
  await writeBigLog(file, n * 600); // more than n lines: the samples average under 300 bytes a line
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  return { lines: lines.slice(0, n), real };
}

async function measure(
  dir: string,
  mode: 'idle' | 'poll' | 'watch',
  ms: number,
  lines: string[],
): Promise<Report> {
  const file = join(dir, `kubelet-${mode}.log`);
  writeFileSync(file, '');
  const child = await spawnTsx(
    'bench/p7-follow-child.ts',
    [file, mode === 'watch' ? 'watch' : 'poll'],
    'ready',
  );
  try {
    const reply = new Promise<Report>((resolve) => {
      let buf = '';
      child.proc.stdout?.on('data', (d: Buffer) => {
        buf += d.toString();
        const l = buf.split('\n').find((x) => x.startsWith('report '));
        if (l) resolve(JSON.parse(l.slice('report '.length)) as Report);
      });
    });
    child.proc.stdin?.write('start\n');
    const fd = openSync(file, 'a');
    const t0 = performance.now();
    let written = 0;
    const writer =
      mode === 'idle'
        ? undefined
        : setInterval(() => {
            const due = Math.min(lines.length, Math.floor(((performance.now() - t0) * RATE) / 1000));
            if (due > written) writeSync(fd, `${lines.slice(written, due).join('\n')}\n`);
            written = due;
          }, 10);
    await new Promise((r) => setTimeout(r, ms)); // the measurement window itself
    if (writer) clearInterval(writer);
    closeSync(fd);
    child.proc.stdin?.write('report\n');
    return await reply;
  } finally {
    child.proc.stdin?.end();
    await child.stop();
  }
}

export async function followRows(o: BenchOptions, dir: string): Promise<Row[]> {
  const ms = o.smoke ? 1_000 : 20_000;
  const { lines, real } = await sourceLines(dir, (ms / 1000) * RATE + RATE);
  if (!real) o.log('sample logs missing from testdata/: writing made-up kill lines instead');
  const idle = await measure(dir, 'idle', ms, lines);
  const poll = await measure(dir, 'poll', ms, lines);
  const watch = await measure(dir, 'watch', ms, lines);
  const pct = (r: Report) => (100 * r.cpuMs) / r.wallMs;
  for (const [k, r] of Object.entries({ idle, poll, watch }))
    o.log(
      `${k}: ${pct(r).toFixed(2)} % of a core, ${r.lines} lines, ${r.events} events in ${Math.round(r.wallMs)} ms`,
    );
  const what = real ? 're-stamped sample lines' : 'made-up lines';
  return [
    row({
      bench: 'P7',
      metric: `log follower CPU, file growing at 1,000 lines/s (${what}, 250 ms poll, ${ms / 1000} s; ${poll.lines} lines, ${poll.events} events)`,
      value: pct(poll),
      unit: '% of a core',
      target: { op: '<=', bound: 3, on: 'value' },
    }),
    row({ bench: 'P7', metric: '… the same with fs.watch added', value: pct(watch), unit: '% of a core' }),
    row({
      bench: 'P7',
      metric: '… the follower idle (file not growing)',
      value: pct(idle),
      unit: '% of a core',
    }),
  ];
}
