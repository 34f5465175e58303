/**
 * `pnpm -s import-log FILE [--year N] [--tz ZONE]` (FILE `-` reads stdin): a kubelet's log in, the trace out,
 * as NDJSON on stdout (time order, seq from 1), the same events the dashboard replays. A summary goes to stderr.
 * Exit 0 when the input held any kubelet line, 1 when it held none ("no kubelet lines in N lines"), 2 on bad
 * arguments or an unreadable file.
 *
 * Streams: the file is read in 1 MiB blocks and never whole; stdout's back-pressure is awaited. Newest-first
 * input (`journalctl -r`) is detected from its first lines and read backwards from the end (stdin is first
 * copied to a temporary file for that).
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  checkZone,
  type ImportSummary,
  KubeletLogParser,
  looksReversed,
  readLinesBackward,
} from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { tuneHeap } from './heap.ts';

const USAGE = 'usage: import-log FILE|- [--year N] [--tz ZONE]';
const BLOCK = 1 << 20;
/** output buffer size: one stdout write each */
const CHUNK = 1 << 20;
let readBackwards = false;
const SNIFF_LINES = 400;

function fail(msg: string, code = 2): never {
  process.stderr.write(`import-log: ${msg}\n`);
  process.exit(code);
}

function options(): { file: string; year?: number; tz?: string } {
  let a: ReturnType<
    typeof parseArgs<{
      options: { year: { type: 'string' }; tz: { type: 'string' }; help: { type: 'boolean' } };
      allowPositionals: true;
    }>
  >;
  try {
    a = parseArgs({
      options: { year: { type: 'string' }, tz: { type: 'string' }, help: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  if (a.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const file = a.positionals[0];
  if (!file || a.positionals.length > 1) fail(USAGE);
  const out: { file: string; year?: number; tz?: string } = { file };
  if (a.values.year !== undefined) {
    const y = Number(a.values.year);
    if (!/^\d{4}$/.test(a.values.year) || y < 1970)
      fail(`--year must be a four-digit year, not "${a.values.year}"`);
    out.year = y;
  }
  if (a.values.tz !== undefined) {
    try {
      checkZone(a.values.tz);
    } catch {
      fail(`--tz: unknown time zone "${a.values.tz}"`);
    }
    out.tz = a.values.tz;
  }
  return out;
}

/**
 * NDJSON out: events are encoded straight into a 1 MiB buffer and stdout gets one write per full buffer. push
 * is called synchronously by the parser and never blocks; the reading loop calls `drain` between input blocks,
 * which waits while stdout has asked to (its write returned false), so at most one input block's output waits in
 * memory. `end` writes what is left.
 */
class Out {
  private buf = Buffer.allocUnsafe(CHUNK);
  private pos = 0;
  private blocked = false;
  push = (ev: TraceEvent): void => {
    if (ev.type === 'log.raw') this.raw(ev);
    else this.line(JSON.stringify(ev));
  };

  /** one JSON text and its newline */
  private line(s: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 unit, plus the newline
    if (!this.room(s.length * 3 + 1)) {
      this.send(Buffer.from(`${s}\n`));
      return;
    }
    this.pos += this.buf.utf8Write(s, this.pos);
    this.buf[this.pos++] = 10;
  }

  /**
   * log.raw is most of a log: written in three parts (a fixed head, the text as JSON, the short fields), with the
   * same bytes JSON.stringify would give for the event object, without building that whole string first.
   */
  private raw(ev: Extract<TraceEvent, { type: 'log.raw' }>): void {
    const text = JSON.stringify(ev.text);
    const tail =
      `,"level":${quoted(ev.level ?? '')},"source":${quoted(ev.source ?? '')}` +
      (ev.pod !== undefined ? `,"pod":${quoted(ev.pod)}` : '') +
      (ev.podUID !== undefined ? `,"podUID":${quoted(ev.podUID)}` : '') +
      `,"seq":${ev.seq},"time":${ev.time},"node":${quoted(ev.node ?? '')},"origin":{"line":${ev.origin?.line ?? 0}}}\n`;
    const most = RAW_HEAD.length + (text.length + tail.length) * 3;
    if (!this.room(most)) {
      this.send(Buffer.from(`{"type":"log.raw","text":${text}${tail}`));
      return;
    }
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < RAW_HEAD.length; i++) b[p++] = RAW_HEAD[i] as number;
    p += b.utf8Write(text, p);
    p += b.utf8Write(tail, p);
    this.pos = p;
  }

  /** makes room for `bytes` more bytes; false when they could never fit in one buffer */
  private room(bytes: number): boolean {
    if (this.pos + bytes <= this.buf.length) return true;
    this.spill();
    return bytes <= this.buf.length;
  }

  /** hands the filled part of the buffer to stdout and starts a new one (stdout may still hold the old) */
  private spill(): void {
    if (this.pos === 0) return;
    const full = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(CHUNK);
    this.pos = 0;
    this.send(full);
  }

  private send(b: Buffer): void {
    if (!process.stdout.write(b)) this.blocked = true;
  }

  async drain(): Promise<void> {
    if (!this.blocked) return;
    await new Promise((r) => process.stdout.once('drain', r));
    this.blocked = false;
  }

  async end(): Promise<void> {
    this.spill();
    await this.drain();
  }
}

const RAW_HEAD = Buffer.from('{"type":"log.raw","text":');
const SAFE = /^[\w.:/ -]*$/;
/** level, source file and node names repeat: each is quoted once (a log has a few thousand at most) */
const quotes = new Map<string, string>();
/** a string as JSON, the same as JSON.stringify */
function quoted(v: string): string {
  let q = quotes.get(v);
  if (q === undefined) {
    q = SAFE.test(v) ? `"${v}"` : JSON.stringify(v);
    if (quotes.size < 65_536) quotes.set(v, q);
  }
  return q;
}

function firstLines(buf: Buffer): string[] {
  return buf.toString('utf8').split('\n', SNIFF_LINES);
}

async function importFile(path: string, parser: KubeletLogParser, out: Out): Promise<void> {
  const fh = await open(path, 'r').catch((e: Error) => fail(`cannot read ${path}: ${e.message}`));
  try {
    const size = (await fh.stat()).size;
    const read = async (start: number, end: number): Promise<Uint8Array> => {
      const b = Buffer.allocUnsafe(end - start);
      const { bytesRead } = await fh.read(b, 0, end - start, start);
      return b.subarray(0, bytesRead);
    };
    const head = Buffer.from(await read(0, Math.min(size, BLOCK)));
    if (looksReversed(firstLines(head))) {
      readBackwards = true;
      for await (const l of readLinesBackward(read, size, BLOCK)) {
        parser.feedLine(l.text, l.no);
        if (l.no % 4096 === 0) await out.drain();
      }
      return;
    }
    const dec = new TextDecoder('utf-8');
    for (let pos = 0; pos < size; pos += BLOCK) {
      const b = await read(pos, Math.min(size, pos + BLOCK));
      if (b.length === 0) break;
      parser.feed(dec.decode(b, { stream: true }));
      await out.drain();
    }
    parser.feed(dec.decode());
  } finally {
    await fh.close();
  }
}

async function importStdin(parser: KubeletLogParser, out: Out): Promise<void> {
  const it = process.stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let newlines = 0;
  let done = false;
  while (newlines < SNIFF_LINES) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    head.push(r.value);
    for (const c of r.value) if (c === 10) newlines++;
  }
  const first = Buffer.concat(head);
  if (looksReversed(firstLines(first))) {
    // newest first: keep the input in a temporary file and read it backwards
    const dir = await mkdtemp(join(tmpdir(), 'import-log-'));
    const path = join(dir, 'stdin.log');
    try {
      const w = createWriteStream(path);
      w.write(first);
      for (let r = done ? { done: true as const } : await it.next(); !r.done; r = await it.next())
        if (!w.write(r.value)) await new Promise<void>((res) => w.once('drain', () => res()));
      await new Promise<void>((res, rej) => w.end((e?: Error | null) => (e ? rej(e) : res())));
      await importFile(path, parser, out);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return;
  }
  const dec = new TextDecoder('utf-8');
  parser.feed(dec.decode(first, { stream: true }));
  await out.drain();
  if (!done)
    for (let r = await it.next(); !r.done; r = await it.next()) {
      parser.feed(dec.decode(r.value, { stream: true }));
      await out.drain();
    }
  parser.feed(dec.decode());
}

function describe(s: ImportSummary): string {
  const iso = (t: number | undefined) => (t === undefined ? '?' : new Date(t).toISOString());
  return [
    `${s.lines} lines read: ${s.understood} understood, ${s.other} skipped as other programs, ${s.raw} kept raw (log.raw), ${s.blank} blank${s.tooLong ? `, ${s.tooLong} too long (skipped)` : ''}`,
    `nodes: ${s.nodes.length ? s.nodes.join(', ') : 'none'}; pods: ${s.pods}; ${s.events} events`,
    `time: ${iso(s.firstTime)} .. ${iso(s.lastTime)}${s.reversed || readBackwards ? ' (newest-first input, read backwards)' : ''}`,
  ].join('\n');
}

// the import keeps little alive (one reorder window, the pods seen) and makes much short-lived garbage: the
// server's heap goal (twice the live heap) keeps the peak RSS bounded whatever the file size (P6: under 200 MB)
tuneHeap();

// a reader that stops early (`| head`) is not an error
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
const opts = options();
const out = new Out();
const parser = new KubeletLogParser({
  onEvent: out.push,
  reversed: false,
  ...(opts.year !== undefined ? { year: opts.year } : {}),
  ...(opts.tz !== undefined ? { tz: opts.tz } : {}),
});
if (opts.file === '-') await importStdin(parser, out);
else await importFile(opts.file, parser, out);
const summary = parser.end();
await out.end();
process.stderr.write(`${describe(summary)}\n`);
if (summary.understood + summary.raw === 0) fail(`no kubelet lines in ${summary.lines} lines`, 1);
