/**
 * The import command's raw-line index (`--raw-index OUT`) as a user runs it, a real process: OUT holds the
 * log's unread entries as a server's import keeps them (`raw.ndjson`), so the server's own reader
 * (imports/raw-read.ts) reads them back from OUT and the input, and, each put in its place among the command's
 * trace, they give the stream the importer makes with every unread line as a log.raw event, byte for byte and
 * seq for seq: on each real log, and on CRLF, gzip, stdin, newest-first and out-of-order input.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { importKubeletLog, readRawRecords } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { afterAll, describe, expect, it } from 'vitest';
import { type RawItem, rawEvents } from './imports/raw-read.ts';
import { outputOf, type ProcessOutput } from './process-testing.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'apps', 'server', 'src', 'import-log.ts');
const DATA = join(ROOT, 'packages', 'core', 'src', 'kubelet-log', 'testdata');
const SAMPLE = '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log';
const tmp = mkdtempSync(join(tmpdir(), 'import-log-raw-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], stdin?: Buffer): Promise<ProcessOutput> {
  const p = spawn(TSX, [CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(p);
  p.stdin.end(stdin ?? '');
  return output;
}

/** the command's trace with the index's entries, read back by the server's reader, put in their places */
async function rebuilt(trace: string, index: string, text: string): Promise<string[]> {
  const dir = mkdtempSync(join(tmp, 'import-'));
  writeFileSync(join(dir, 'log.txt'), text);
  copyFileSync(index, join(dir, 'raw.ndjson'));
  const raws: RawItem[] = [];
  for await (const r of rawEvents(dir)) raws.push(r);
  const out: TraceEvent[] = [];
  const push = (ev: TraceEvent) => {
    ev.seq = out.length + 1;
    out.push(ev);
  };
  let r = 0;
  for (const line of trace.split('\n')) {
    if (line === '') continue;
    const ev = JSON.parse(line) as TraceEvent;
    for (; r < raws.length && (raws[r] as RawItem).after < ev.seq; r++) push((raws[r] as RawItem).event);
    push(ev);
  }
  for (; r < raws.length; r++) push((raws[r] as RawItem).event);
  return out.map((e) => JSON.stringify(e));
}

interface Case {
  name: string;
  /** the log's text as the importer reads it */
  text: string;
  /** what the command is given: a file's bytes, or stdin's */
  input: Buffer;
  stdin?: boolean;
}

const sample = readFileSync(join(DATA, SAMPLE), 'utf8');
const lines = sample.split('\n').filter((l) => l !== '');
const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
const crlf = sample.replace(/\n/g, '\r\n');
const reversed = `${[...lines].reverse().join('\n')}\n`;
const blocks = `${[...lines.slice(cut), ...lines.slice(0, cut)].join('\n')}\n`;
const cases: Case[] = [
  ...readdirSync(DATA)
    .filter((f) => f.endsWith('.log'))
    .map((f) => ({ name: f, text: readFileSync(join(DATA, f), 'utf8'), input: readFileSync(join(DATA, f)) })),
  { name: 'CRLF', text: crlf, input: Buffer.from(crlf) },
  { name: 'gzip', text: sample, input: gzipSync(sample) },
  { name: 'stdin, gzip', text: sample, input: gzipSync(sample), stdin: true },
  { name: 'newest first', text: reversed, input: Buffer.from(reversed) },
  { name: 'blocks out of time order', text: blocks, input: Buffer.from(blocks) },
];

describe('import-log --raw-index', () => {
  it('writes the records a server import keeps: read back in place, the importer stream with its log.raw events', async () => {
    mkdirSync(join(tmp, 'in'));
    const runs = await Promise.all(
      cases.map((c, i) => {
        const f = join(tmp, 'in', `${i}.log`);
        const idx = join(tmp, `${i}.idx`);
        if (!c.stdin) writeFileSync(f, c.input);
        const args = [c.stdin ? '-' : f, '--year', '2024', '--raw-index', idx];
        return run(args, c.stdin ? c.input : undefined).then((r) => ({ ...r, idx }));
      }),
    );
    for (const [i, c] of cases.entries()) {
      const r = runs[i] as ProcessOutput & { idx: string };
      expect(r.code, `${c.name}: ${r.err}`).toBe(0);
      const want = importKubeletLog(c.text, { year: 2024 }).events;
      const raws = want.filter((e) => e.type === 'log.raw').length;
      expect(raws, c.name).toBeGreaterThan(0);
      expect(readRawRecords(readFileSync(r.idx, 'utf8')), c.name).toHaveLength(raws);
      expect(r.out, c.name).not.toContain('"type":"log.raw"');
      expect(await rebuilt(r.out, r.idx, c.text), c.name).toEqual(want.map((e) => JSON.stringify(e)));
    }
  }, 120_000);
});
