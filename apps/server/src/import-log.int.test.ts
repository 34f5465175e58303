/**
 * The import-log command as a user runs it: a real process, a real file or stdin, NDJSON on stdout, the
 * summary on stderr, the raw-line index (--raw-index), the exit code. Its output must open in the dashboard's
 * replay (parseTraceNdjson).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  feedWhole,
  KubeletLogParser,
  type RawRecord,
  rangeLines,
  readRawRecords,
  recordText,
} from '@syncscope/core/kubelet-log';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTraceNdjson } from '../../web/src/lib/ndjson.ts';
import { NdjsonOut } from './import-log-out.ts';
import { outputOf, type ProcessOutput } from './process-testing.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'apps', 'server', 'src', 'import-log.ts');
const DATA = join(ROOT, 'packages', 'core', 'src', 'kubelet-log', 'testdata');
const tmp = mkdtempSync(join(tmpdir(), 'import-log-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function run(args: string[], stdin?: Buffer | string): Promise<ProcessOutput> {
  const p = spawn(TSX, [CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = outputOf(p);
  p.stdin.end(stdin ?? '');
  return output;
}

/**
 * the NDJSON of a text imported in this process with the single-threaded writer (`whole`: merged by time), the
 * lines no rule reads left out of it as the command leaves them
 */
async function reference(text: string, year: number, whole = false): Promise<string> {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      parts.push(Buffer.from(chunk));
      done();
    },
  });
  const out = new NdjsonOut(sink);
  const parser = new KubeletLogParser({
    onEvent: out.push,
    reversed: false,
    year,
    rawIndex: { add: () => undefined },
  });
  if (whole) feedWhole(text, (t, n) => parser.feedLine(t, n), { year, reversed: false });
  else parser.feed(text);
  parser.end();
  await out.end();
  return Buffer.concat(parts).toString('utf8');
}

/**
 * each record of an index file (import-log-raw-index.int.test.ts reads them back whole): the input's line it
 * starts at (split by LF, CR dropped), and the line its offsets give
 */
function indexed(index: string, input: Buffer): { want: string[]; got: string[]; records: RawRecord[] } {
  const records = readRawRecords(readFileSync(index, 'utf8'));
  const lines = input.toString('utf8').split('\n');
  const want = records.map((r) => (lines[r.entry.line - 1] ?? '').replace(/\r$/, ''));
  const got = records.map((r) => rangeLines(input.subarray(r.start, r.end))[0] ?? '');
  return { want, got, records };
}

const sample = join(DATA, '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log');

// every test starts real processes: on a busy machine one can take seconds
describe('import-log', { timeout: 30_000 }, () => {
  it('prints the trace as NDJSON the dashboard replays, and the summary', async () => {
    const r = await run([sample, '--year', '2025']);
    expect(r.code).toBe(0);
    const parsed = parseTraceNdjson(r.out);
    expect(parsed.errors).toEqual([]);
    expect(parsed.events.map((e) => e.seq)).toEqual(parsed.events.map((_, i) => i + 1));
    expect(parsed.events.length).toBe(151);
    expect(parsed.events.map((e) => e.type)).not.toContain('log.raw');
    const times = parsed.events.map((e) => e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(r.err).toContain(
      '886 lines read: 157 understood, 0 skipped as other programs, 729 kept raw (not in the trace; --raw-index OUT lists them)',
    );
    expect(r.err).toContain('nodes: localhost.localdomain; pods: 8; 151 events');
    expect(r.err).toContain('time: 2025-05-12T04:58:17.098Z .. 2025-05-12T05:19:26.068Z');
  });

  it('writes the same bytes for the sample logs as it always has', async () => {
    // SHA-256 of `import-log <sample> --year 2024` (trace events only: the lines no rule reads are not in it):
    // any change in what the command makes of a real log shows here; the events themselves are checked,
    // readably, by samples.test.ts
    const want: Record<string, string> = {
      '01-v1.17-windows-glog-v4-full-lifecycle.log':
        '333337be9ce7963f65b26d3419e8e56ec11f3b548bbb216467e5c7dc7daa632a',
      '03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log':
        '427cc8850f1b163cc74a785b53c43f4b5a487924bcd785e018c82334a8b51378',
      '07-v1.3x-talos-json-v0-etcd-overload-volume-stuck.log':
        '2e5dff17aa03d85ae4d4ed0776cc6584d5371a017dc0d456c4f1c79f7147eefa',
      '09-v1.15-aks-journald-glog-v2-helm-burst.log':
        'bc89e5b3004d980a2aa1d32b7b7e36bd82a27cfe40b279aa48c3b33aa8a313c4',
      '10-v1.16-1.18-journald-glog-v2-sandbox-create-failure.log':
        'f3830193581965ccca5b05223d25837146d8c5da44d1c42ab8f76d69eb531956',
    };
    const files = Object.keys(want);
    const runs = await Promise.all(files.map((f) => run([join(DATA, f), '--year', '2024'])));
    const got = Object.fromEntries(
      files.map((f, i) => [
        f,
        createHash('sha256')
          .update(runs[i]?.out ?? '')
          .digest('hex'),
      ]),
    );
    expect(got).toEqual(want);
  }, 60_000);

  it('writes the bytes the one-thread writer writes for a log of many output buffers and batches', async () => {
    // the five samples one after another, fifty times (17 MB in, 2 MB of NDJSON out: the lines no rule reads
    // are not in it): blocks out of time order, read whole and merged; encoded on a thread of its own, the
    // same bytes as encoded in one
    const one = Buffer.concat(
      readdirSync(DATA)
        .filter((f) => f.endsWith('.log'))
        .sort()
        .map((f) => readFileSync(join(DATA, f))),
    );
    const input = Buffer.concat(Array(50).fill(one));
    const f = join(tmp, 'repeated.log');
    writeFileSync(f, input);
    const r = await run([f, '--year', '2024']);
    expect(r.code).toBe(0);
    expect(r.out.length).toBeGreaterThan(1_500_000);
    expect(r.out).toBe(await reference(input.toString('utf8'), 2024, true));
  }, 120_000);

  it('reads characters cut by a block boundary and byte-order marks as one UTF-8 decoder would', async () => {
    // 1 MiB blocks: a mark at the start (dropped), one at the start of the second block (a character of the
    // line), a three-byte arrow across the second boundary; the rest ASCII, read the fast way
    const parts: Buffer[] = [Buffer.from([0xef, 0xbb, 0xbf])];
    let size = 3;
    const asciiTo = (end: number) => {
      const line = 'I0601 10:00:01.000000     1 x.go:1] plain ascii text of a line\n';
      while (end - size > 2 * line.length) {
        parts.push(Buffer.from(line));
        size += line.length;
      }
      const tail = `I0601 10:00:02.000000     1 x.go:2] ${'p'.repeat(end - size - 36)}`;
      parts.push(Buffer.from(tail));
      size += tail.length;
    };
    const add = (s: string) => {
      const b = Buffer.from(s);
      parts.push(b);
      size += b.length;
    };
    asciiTo(1 << 20);
    add('\ufeff mark inside a line, é\n');
    asciiTo((2 << 20) - 1);
    add('→ across the boundary\n');
    asciiTo(3 << 20);
    add('\n');
    const input = Buffer.concat(parts);
    expect(input.subarray(1 << 20, (1 << 20) + 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(input[(2 << 20) - 1]).toBe(0xe2);
    const f = join(tmp, 'boundaries.log');
    writeFileSync(f, input);
    const [file, stdin] = await Promise.all([
      run([f, '--year', '2024', '--raw-index', join(tmp, 'boundaries.file.idx')]),
      run(['-', '--year', '2024', '--raw-index', join(tmp, 'boundaries.stdin.idx')], input),
    ]);
    const want = await reference(new TextDecoder().decode(input), 2024);
    expect(file.code).toBe(0);
    expect(file.out).toBe(want);
    expect(stdin.out).toBe(want);
    // the lines no rule reads are in the index, their text read back from the file by offsets
    for (const idx of ['boundaries.file.idx', 'boundaries.stdin.idx']) {
      const { want: lines, got } = indexed(join(tmp, idx), input);
      expect(got).toEqual(lines);
      expect(got.some((l) => l.endsWith('p\ufeff mark inside a line, é'))).toBe(true);
      expect(got.some((l) => l.endsWith('pp→ across the boundary'))).toBe(true);
    }
    expect(readFileSync(join(tmp, 'boundaries.stdin.idx'), 'utf8')).toBe(
      readFileSync(join(tmp, 'boundaries.file.idx'), 'utf8'),
    );
  }, 60_000);

  it('writes the raw-line index: each unread line found by its offsets with its exact text (CRLF, UTF-8, gzip)', async () => {
    const klog = (s: number, msg: string) =>
      `I0601 10:00:${String(s).padStart(2, '0')}.000000     7 x.go:1] ${msg}`;
    const text = `${[
      klog(1, '"SyncLoop ADD" source="api" pods=["ns1/web-0"]'),
      klog(2, '"Unread, with a multi-byte name" node="nœud-é" arrow="→" emoji="😀"'),
      klog(3, '"Another unread line" cjk="节点"'),
      klog(4, '"SyncLoop (housekeeping)"'),
      klog(5, '"A third unread line, alone" x=1'),
      klog(6, '"SyncLoop DELETE" source="api" pods=["ns1/web-0"]'),
    ].join('\r\n')}\r\n`;
    const input = Buffer.from(text);
    const f = join(tmp, 'crlf.log');
    writeFileSync(f, input);
    const gz = join(tmp, 'crlf.log.gz');
    writeFileSync(gz, gzipSync(input));
    const idx = (k: string) => join(tmp, `crlf.${k}.idx`);
    const [plain, zipped, piped] = await Promise.all([
      run([f, '--year', '2024', '--raw-index', idx('file')]),
      run([gz, '--year', '2024', '--raw-index', idx('gz')]),
      run(['-', '--year', '2024', '--raw-index', idx('stdin')], gzipSync(input)),
    ]);
    expect([plain.code, zipped.code, piped.code]).toEqual([0, 0, 0]);
    expect(plain.err).toContain(`3 kept raw (indexed in ${idx('file')})`);
    expect(parseTraceNdjson(plain.out).events.map((e) => e.type)).not.toContain('log.raw');
    const { want, got, records } = indexed(idx('file'), input);
    const at = (s: number) => input.indexOf(`I0601 10:00:0${s}`);
    expect(records.map((r) => [r.entry.node, r.entry.line, r.start, r.end])).toEqual([
      ['pid 7', 2, at(2), at(3)],
      ['pid 7', 3, at(3), at(4)],
      ['pid 7', 5, at(5), at(6)],
    ]);
    expect(got).toEqual(want);
    expect(records.map((r) => recordText(r, input.subarray(r.start, r.end)))).toEqual([
      '"Unread, with a multi-byte name" node="nœud-é" arrow="→" emoji="😀"',
      '"Another unread line" cjk="节点"',
      '"A third unread line, alone" x=1',
    ]);
    // a gzip input's offsets are those of its inflated text: the same index
    expect(readFileSync(idx('gz'), 'utf8')).toBe(readFileSync(idx('file'), 'utf8'));
    expect(readFileSync(idx('stdin'), 'utf8')).toBe(readFileSync(idx('file'), 'utf8'));
  });

  it('indexes the raw lines of newest-first input and of blocks out of time order by the lines of the file given', async () => {
    const lines = readFileSync(sample, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
    const files = {
      reversed: `${[...lines].reverse().join('\n')}\n`,
      blocks: `${[...lines.slice(cut), ...lines.slice(0, cut)].join('\n')}\n`,
    };
    for (const [k, text] of Object.entries(files)) writeFileSync(join(tmp, `${k}-idx.log`), text);
    const runs = await Promise.all(
      Object.keys(files).map((k) =>
        run([join(tmp, `${k}-idx.log`), '--year', '2025', '--raw-index', join(tmp, `${k}.idx`)]),
      ),
    );
    for (const [i, k] of Object.keys(files).entries()) {
      expect(runs[i]?.code).toBe(0);
      const { want, got } = indexed(join(tmp, `${k}.idx`), readFileSync(join(tmp, `${k}-idx.log`)));
      expect(got).toEqual(want);
      expect(got).toHaveLength(729);
    }
    expect(runs[0]?.err).toContain('newest-first input, read backwards');
    expect(runs[1]?.err).toContain('pasted in 2 blocks out of time order');
  });

  it('reads stdin with "-" to the same output', async () => {
    const [a, b] = await Promise.all([
      run([sample, '--year', '2025']),
      run(['-', '--year', '2025'], readFileSync(sample)),
    ]);
    expect(b.code).toBe(0);
    expect(b.out).toBe(a.out);
  });

  it('reads a gzip-compressed log (a rotated kubelet.log.1.gz) from a file and stdin to the same output', async () => {
    // in time order (January's log first): a file and a stream are read alike
    const two = [join(DATA, '09-v1.15-aks-journald-glog-v2-helm-burst.log'), sample];
    const plain = join(tmp, 'two.log');
    writeFileSync(plain, Buffer.concat(two.map((f) => readFileSync(f))));
    // `cat a.gz b.gz`: two gzip members, read as one log, as gunzip reads them
    const gz = join(tmp, 'two.log.gz');
    writeFileSync(gz, Buffer.concat(two.map((f) => gzipSync(readFileSync(f)))));
    // cut short (a copy of a file still being written): read as far as it goes, said so, exit 0
    const whole = gzipSync(readFileSync(sample));
    const cut = join(tmp, 'cut.log.gz');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
    const bad = join(tmp, 'bad.log.gz');
    writeFileSync(bad, Buffer.concat([whole.subarray(0, 10), Buffer.from('not deflate at all')]));
    const [a, b, c, d, e] = await Promise.all([
      run([plain, '--year', '2025']),
      run([gz, '--year', '2025']),
      run(['-', '--year', '2025'], readFileSync(gz)),
      run([cut, '--year', '2025']),
      run([bad, '--year', '2025']),
    ]);
    expect([b.code, c.code]).toEqual([0, 0]);
    expect(b.out).toBe(a.out);
    expect(c.out).toBe(a.out);
    expect(b.err).toBe(a.err);
    expect(d.code).toBe(0);
    expect(d.err).toContain(
      `import-log: ${cut}: the gzip stream ends early (cut short?); read what it holds`,
    );
    const got = parseTraceNdjson(d.out).events.length;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(parseTraceNdjson(a.out).events.length);
    expect(e.code).toBe(2);
    expect(e.err).toMatch(new RegExp(`^import-log: cannot read ${bad}: \\S`));
  });

  it('reads UTF-16 text with a byte-order mark (Windows PowerShell output), LE, BE and gzip-compressed, to the same output', async () => {
    const text = readFileSync(sample, 'utf8');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    const files = { le, be, gz: gzipSync(le) };
    for (const [k, b] of Object.entries(files)) writeFileSync(join(tmp, `utf16-${k}.log`), b);
    const [a, ...got] = await Promise.all([
      run([sample, '--year', '2025']),
      ...Object.keys(files).map((k) => run([join(tmp, `utf16-${k}.log`), '--year', '2025'])),
      run(['-', '--year', '2025'], le),
    ]);
    expect(a.code).toBe(0);
    for (const g of got) {
      expect(g.code).toBe(0);
      expect(g.out).toBe(a.out);
      expect(g.err).toBe(a.err);
    }
  });

  it('reads newest-first input (journalctl -r) backwards, from a file and from stdin', async () => {
    const fwdFile = join(DATA, '01-v1.17-windows-glog-v4-full-lifecycle.log');
    const lines = readFileSync(fwdFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const revFile = join(tmp, 'reversed.log');
    writeFileSync(revFile, `${[...lines].reverse().join('\n')}\n`);
    const [fwd, rev, revIn] = await Promise.all([
      run([fwdFile, '--year', '2019']),
      run([revFile, '--year', '2019']),
      run(['-', '--year', '2019'], readFileSync(revFile)),
    ]);
    expect(rev.code).toBe(0);
    expect(rev.err).toContain('newest-first input, read backwards');
    const key = (out: string) =>
      parseTraceNdjson(out).events.map((e) => `${e.type} ${e.time} ${(e as { op?: string }).op ?? ''}`);
    expect(key(rev.out)).toEqual(key(fwd.out));
    expect(revIn.out).toBe(rev.out);
    // line numbers are those of the file given: the ADD on line 4 of the forward file is line 376 reversed
    const add = parseTraceNdjson(rev.out).events.find((e) => e.type === 'config.update');
    expect(add?.origin?.line).toBe(lines.length - 4 + 1);
  });

  it('says so and exits 1 when no line is a kubelet line (empty, another program, binary)', async () => {
    const empty = join(tmp, 'empty.log');
    writeFileSync(empty, '');
    const other = join(tmp, 'other.log');
    writeFileSync(
      other,
      'Jun 01 10:00:01 n1 containerd[800]: time="2024-06-01T10:00:01Z" level=info msg="a"\nJun 01 10:00:02 n1 sshd[9]: Accepted publickey\n\n',
    );
    const bin = join(tmp, 'bin.log');
    writeFileSync(bin, Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256)));
    const [a, b, c] = await Promise.all([run([empty]), run([other]), run([bin])]);
    expect([a.code, b.code, c.code]).toEqual([1, 1, 1]);
    expect(a.err).toContain('no kubelet lines in 0 lines');
    expect(b.err).toContain('no kubelet lines in 3 lines');
    expect(c.err).toMatch(/no kubelet lines in \d+ lines/);
    expect(a.out + b.out + c.out).toBe('');
  });

  it('skips a 10 MB line with a count and reads the rest', async () => {
    const f = join(tmp, 'long.log');
    const head = 'I0601 10:00:01.000000     1 kubelet.go:1987] SyncLoop (housekeeping)\n';
    writeFileSync(
      f,
      `${head}I0601 10:00:02.000000     1 x.go:1] ${'x'.repeat(10 << 20)}\n${head.replace(':01.', ':03.')}`,
    );
    const r = await run([f, '--year', '2024']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('3 lines read: 2 understood');
    expect(r.err).toContain('1 too long (skipped)');
    expect(parseTraceNdjson(r.out).events).toHaveLength(2);
  });

  it('reads a megabyte line of digits or nested prefixes from stdin, and the lines after it', async () => {
    const hk = (s: number) => `I0601 10:00:0${s}.000000     1 kubelet.go:1987] "SyncLoop (housekeeping)"\n`;
    const digits = `I0601 10:00:02.000000     1 kuberuntime_manager.go:1] back-off ${'1'.repeat(1_000_000)} restarting failed container=c pod=p_ns(0b7a1e3c-1111-2222-3333-444455556666)\n`;
    const segments = `${'a]: '.repeat(250_000)}x ${hk(3)}`;
    const r = await run(['-', '--year', '2024'], `${hk(1)}${digits}${segments}${hk(4)}`);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('cannot read');
    const hks = parseTraceNdjson(r.out).events.filter((e) => e.type === 'loop.iteration');
    expect(hks.map((e) => new Date(e.time).getUTCSeconds())).toEqual([1, 3, 4]);
  });

  it('reads a file pasted in blocks out of time order in time order, and says so', async () => {
    const lines = readFileSync(sample, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    // cut where the two slices of the sample meet (a 19-minute pause) and paste the later one first
    const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
    const f = join(tmp, 'blocks.log');
    writeFileSync(f, `${[...lines.slice(cut), ...lines.slice(0, cut)].join('\n')}\n`);
    const [pasted, written] = await Promise.all([
      run([f, '--year', '2025']),
      run([sample, '--year', '2025']),
    ]);
    expect(pasted.code).toBe(0);
    const times = parseTraceNdjson(pasted.out).events.map((e) => e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times).toEqual(parseTraceNdjson(written.out).events.map((e) => e.time));
    expect(pasted.err).toContain('pasted in 2 blocks out of time order, merged by time');
  });

  it('reads two rotated files concatenated out of order on stdin in time order, and says so', async () => {
    // the sample's two slices (a 19-minute pause between them) as kubelet.log.1 and the kubelet.log after it,
    // piped newer first: `cat kubelet.log kubelet.log.1 | import-log -`
    const lines = readFileSync(sample, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const cut = lines.findIndex((l) => l.startsWith('May 12 05:19:09'));
    const rotated = `${lines.slice(0, cut).join('\n')}\n`;
    const current = `${lines.slice(cut).join('\n')}\n`;
    const [piped, written] = await Promise.all([
      run(['-', '--year', '2025'], current + rotated),
      run([sample, '--year', '2025']),
    ]);
    expect(piped.code).toBe(0);
    const events = parseTraceNdjson(piped.out).events;
    const times = events.map((e) => e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.map((e) => [e.type, e.time])).toEqual(
      parseTraceNdjson(written.out).events.map((e) => [e.type, e.time]),
    );
    expect(piped.err).toContain('pasted in 2 blocks out of time order, merged by time');
  });

  it('refuses bad arguments with exit 2', async () => {
    const [tz, year, missing, none] = await Promise.all([
      run([sample, '--tz', 'Mars/Olympus']),
      run([sample, '--year', '19']),
      run([join(tmp, 'no-such.log')]),
      run([]),
    ]);
    expect([tz.code, year.code, missing.code, none.code]).toEqual([2, 2, 2, 2]);
    expect(tz.err).toContain('unknown time zone "Mars/Olympus"');
    expect(year.err).toContain('--year must be a four-digit year');
    expect(missing.err).toContain('cannot read');
    expect(none.err).toContain('usage: import-log FILE|-');
  });

  it('refuses a raw-line index without a file name, or beside --explain, with exit 2', async () => {
    const [noName, explain] = await Promise.all([
      run([sample, '--raw-index', '']),
      run([sample, '--raw-index', join(tmp, 'x.idx'), '--explain']),
    ]);
    expect([noName.code, explain.code]).toEqual([2, 2]);
    expect(noName.err).toContain('--raw-index needs a file name');
    expect(explain.err).toContain('--raw-index and --explain do not go together');
  });
});
