/**
 * `pnpm -s import-log FILE [--year N] [--tz ZONE] [--raw-index OUT]` (FILE `-` reads stdin; either may be
 * gzip-compressed, as a rotated kubelet.log.1.gz is, and UTF-16 text with a byte-order mark, as Windows
 * PowerShell saves it, is read as well): a kubelet's log in, the trace out,
 * as NDJSON on stdout (time order, seq from 1), the same events the dashboard replays. A summary goes to stderr.
 * The trace holds trace events only: the lines no rule reads are counted, and `--raw-index OUT` writes where
 * they are (line ranges with byte offsets, ./import-log-raw-index.ts).
 * `--explain` prints the model beside the log instead of the trace (./import-log-explain.ts), raw lines in it.
 * Exit 0 when the input held any kubelet line, 1 when it held none ("no kubelet lines in N lines"), 2 on bad
 * arguments or an unreadable file.
 *
 * Streams: the file is read in 1 MiB blocks, first for the time of each line, then to parse it, and never whole;
 * when its lines fall into blocks out of time order (a log pasted in pieces, several masters' logs or rotated
 * files one after the other), a file up to 256 MiB is read block by block in the order that merges them by time
 * (blockOrder, LineFile). stdin is copied to a temporary file first (up to 256 MiB; the rest is read as it comes,
 * and the summary counts the events the reorder window could not place) and read as a file. stdout's
 * back-pressure is awaited. Newest-first input (`journalctl -r`) is detected from its first lines and read
 * backwards from the end. The NDJSON of a file of 1 MiB or more, or of stdin, is encoded on a
 * second thread (EncoderPipe) while this one parses: the same bytes, sooner on a machine with two cores.
 */
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { mkdtemp, open, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  asUtf8,
  blockOrder,
  checkZone,
  type ImportSummary,
  KubeletLogParser,
  looksReversed,
  RawIndex,
  type RawSink,
  readLinesBackward,
  StampScanner,
  utf16Of,
} from '@syncscope/core/kubelet-log';
import { isGzip, maybeGunzip } from './gzip-input.ts';
import { ExplainOut } from './import-log-explain.ts';
import { NdjsonOut } from './import-log-out.ts';
import { EncoderPipe } from './import-log-pipe.ts';
import { writeRawIndex } from './import-log-raw-index.ts';
import { BlockDecoder, LineFile } from './log-blocks.ts';

/** where events go: encoded here (NdjsonOut) or on a second thread (EncoderPipe); the same bytes either way */
type Out = Pick<NdjsonOut, 'push' | 'drain' | 'end'>;
/** a file smaller than this is encoded on the main thread: starting the second one would cost more */
const SMALL_FILE = 1 << 20;

const USAGE = 'usage: import-log FILE|- [--year N] [--tz ZONE] [--raw-index OUT] [--explain]';
const BLOCK = 1 << 20;
let readBackwards = false;
/** how many blocks a file pasted out of order was merged from (0: read as it came) */
let merged = 0;
/** a file pasted out of order is read whole up to this size; a larger one is read as it comes */
const WHOLE_MAX = 256 * 1024 * 1024;
const SNIFF_LINES = 400;
/** the file the input was last read from (itself, or a copy of stdin or of a gzip or UTF-16 file) */
let source: string | undefined;
/** whether `source` holds the whole input (stdin past WHOLE_MAX is read on as it comes, not copied) */
let sourceWhole = true;
/** temporary directories, removed on exit */
const temps: string[] = [];

function removeTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

function fail(msg: string, code = 2): never {
  removeTemps();
  process.stderr.write(`import-log: ${msg}\n`);
  process.exit(code);
}

interface Options {
  file: string;
  year?: number;
  tz?: string;
  rawIndex?: string;
  explain: boolean;
}

function options(): Options {
  let a: ReturnType<
    typeof parseArgs<{
      options: {
        year: { type: 'string' };
        tz: { type: 'string' };
        help: { type: 'boolean' };
        explain: { type: 'boolean' };
        'raw-index': { type: 'string' };
      };
      allowPositionals: true;
    }>
  >;
  try {
    a = parseArgs({
      options: {
        year: { type: 'string' },
        tz: { type: 'string' },
        help: { type: 'boolean' },
        explain: { type: 'boolean' },
        'raw-index': { type: 'string' },
      },
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
  const out: Options = { file, explain: a.values.explain === true };
  const index = a.values['raw-index'];
  if (index !== undefined) {
    if (index === '' || index === '-') fail(`--raw-index needs a file name, not "${index}"\n${USAGE}`);
    if (out.explain) fail(`--raw-index and --explain do not go together (--explain shows the raw lines)`);
    out.rawIndex = index;
  }
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

/** a gzip input that ends early is read as far as it goes, and said so */
function cut(what: string): void {
  process.stderr.write(`import-log: ${what}: the gzip stream ends early (cut short?); read what it holds\n`);
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
    if (!isGzip(head) && !utf16Of(head)) source = path;
    if (isGzip(head)) {
      await importStream(
        asUtf8(maybeGunzip(createReadStream(path), { onCut: () => cut(path) })),
        parser,
        out,
      );
      return;
    }
    if (utf16Of(head)) {
      await importStream(asUtf8(createReadStream(path)), parser, out);
      return;
    }
    if (looksReversed(firstLines(head))) {
      readBackwards = true;
      for await (const l of readLinesBackward(read, size, BLOCK)) {
        parser.feedLine(l.text, l.no);
        if (l.no % 4096 === 0) await out.drain();
      }
      return;
    }
    // one buffer for every block: its text is a copy
    const block = Buffer.allocUnsafeSlow(BLOCK);
    const order = size <= WHOLE_MAX ? await blocksOf(fh, size, block) : undefined;
    if (order) {
      // blocks pasted out of time order: each block is read from the file through a window of its own
      // (LineFile), in the merged order; the file is never held
      const lines = LineFile.open(fh.fd, size);
      for (let j = 0; j < order.order.length; j++) {
        const i = order.order[j] as number;
        parser.feedLine(lines.line(i), i + 1);
        if (j % 4096 === 4095) await out.drain();
      }
      merged = order.blocks;
      return;
    }
    await decodeBlocks(
      fh,
      size,
      block,
      (text) => parser.feed(text),
      () => out.drain(),
    );
  } finally {
    await fh.close();
  }
}

/**
 * The first pass over a file: the time of every line's header (StampScanner); when they fall into more than one
 * block (a log pasted out of order, rotated files concatenated), the order to read the lines in (blockOrder).
 * Reads the file once more; memory: about 16 bytes a line.
 */
async function blocksOf(
  fh: Awaited<ReturnType<typeof open>>,
  size: number,
  block: Buffer,
): Promise<{ order: Uint32Array; blocks: number } | undefined> {
  const { year, tz } = clockOf(opts);
  const scan = new StampScanner(year, tz);
  await decodeBlocks(fh, size, block, (text) => scan.feed(text));
  scan.end();
  const { order, blocks } = blockOrder(scan.all);
  return order ? { order, blocks } : undefined;
}

/**
 * Reads bytes [0, size) of the file a block at a time into `block`, handing each whole line's text to `feed`
 * (BlockDecoder: a line cut by a block's end waits for the next); `between` runs after each block.
 */
async function decodeBlocks(
  fh: Awaited<ReturnType<typeof open>>,
  size: number,
  block: Buffer,
  feed: (text: string) => void,
  between?: () => Promise<void>,
): Promise<void> {
  const dec = new BlockDecoder();
  for (let pos = 0; pos < size; pos += BLOCK) {
    const { bytesRead } = await fh.read(block, 0, Math.min(BLOCK, size - pos), pos);
    if (bytesRead === 0) break;
    dec.feed(block.subarray(0, bytesRead), feed);
    await between?.();
  }
  feed(dec.end());
}

function clockOf(o: { year?: number; tz?: string }): { year: number; tz?: string } {
  const year = o.year ?? new Date().getUTCFullYear();
  return o.tz === undefined ? { year } : { year, tz: o.tz };
}

/**
 * stdin, or a gzip file's inflated stream: copied to a temporary file and read from there as a file is (newest
 * first read backwards, blocks out of time order merged), memory bounded by the file's reader. Past WHOLE_MAX
 * (unless newest first) the copy stops: what was copied is read forwards, then the rest as it comes, in the
 * reorder window. The copy is kept until the raw-line index has its offsets from it (removeTemps).
 */
async function importStream(
  input: AsyncIterable<Uint8Array>,
  parser: KubeletLogParser,
  out: Out,
): Promise<void> {
  const it = input[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
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
  const reversed = looksReversed(firstLines(first));
  const dir = await mkdtemp(join(tmpdir(), 'import-log-'));
  temps.push(dir);
  const path = join(dir, 'stdin.log');
  const w = createWriteStream(path);
  w.on('error', () => undefined); // the end() below reports it
  w.write(first);
  let size = first.length;
  while (!done && (reversed || size <= WHOLE_MAX)) {
    const r = await it.next();
    if (r.done) done = true;
    else {
      size += r.value.length;
      if (!w.write(r.value)) await new Promise<void>((res) => w.once('drain', () => res()));
    }
  }
  await new Promise<void>((res, rej) => w.end((e?: Error | null) => (e ? rej(e) : res())));
  if (done) {
    await importFile(path, parser, out);
    return;
  }
  source = path;
  sourceWhole = false;
  const dec = new BlockDecoder();
  const parse = (text: string) => parser.feed(text);
  for await (const b of createReadStream(path, { highWaterMark: BLOCK })) {
    dec.feed(b as Buffer, parse);
    await out.drain();
  }
  for (let r = await it.next(); !r.done; r = await it.next()) {
    dec.feed(r.value, parse);
    await out.drain();
  }
  parse(dec.end());
}

function describe(s: ImportSummary): string {
  const iso = (t: number | undefined) => (t === undefined ? '?' : new Date(t).toISOString());
  return [
    `${s.lines} lines read: ${s.understood} understood, ${s.other} skipped as other programs, ${s.raw} kept raw${rawWhere()}, ${s.blank} blank${s.tooLong ? `, ${s.tooLong} too long (skipped)` : ''}${s.failed ? `, ${s.failed} unreadable (passed over or kept raw)` : ''}`,
    `nodes: ${s.nodes.length ? s.nodes.join(', ') : 'none'}; pods: ${s.pods}; ${s.events} events`,
    `time: ${iso(s.firstTime)} .. ${iso(s.lastTime)}${s.reversed || readBackwards ? ' (newest-first input, read backwards)' : ''}${merged > 1 ? ` (pasted in ${merged} blocks out of time order, merged by time)` : ''}${s.late ? `; ${s.late} events out of time order the reorder window could not place` : ''}`,
  ].join('\n');
}

/** where the summary says the raw lines are */
function rawWhere(): string {
  if (opts.explain) return '';
  return opts.rawIndex === undefined
    ? ' (not in the trace; --raw-index OUT lists them)'
    : ` (indexed in ${opts.rawIndex})`;
}

// the import keeps little alive (one reorder window, the pods seen) and makes much short-lived garbage: the
// server's heap goal (heap.ts; `pnpm -s import-log` starts with it) keeps the peak RSS bounded whatever the
// file size (P6: under 200 MB)

// a reader that stops early (`| head`) is not an error
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') {
    removeTemps();
    process.exit(0);
  }
  throw e;
});
const opts = options();
const small =
  opts.file !== '-' &&
  (await stat(opts.file).then(
    (st) => st.size < SMALL_FILE,
    () => true,
  ));
const out: Out = opts.explain
  ? new ExplainOut(process.stdout)
  : small
    ? new NdjsonOut(process.stdout)
    : new EncoderPipe(process.stdout);
// the lines no rule reads go to the index, not the trace (--explain shows them beside the model); without
// --raw-index they are only counted, so memory stays bounded whatever the input's size
const rawIndex = opts.rawIndex === undefined ? undefined : new RawIndex();
const rawSink: RawSink | undefined = opts.explain ? undefined : (rawIndex ?? { add: () => undefined });
const parser = new KubeletLogParser({
  onEvent: out.push,
  reversed: false,
  ...(rawSink ? { rawIndex: rawSink } : {}),
  ...(opts.year !== undefined ? { year: opts.year } : {}),
  ...(opts.tz !== undefined ? { tz: opts.tz } : {}),
});
try {
  if (opts.file === '-')
    await importStream(asUtf8(maybeGunzip(process.stdin, { onCut: () => cut('stdin') })), parser, out);
  else await importFile(opts.file, parser, out);
} catch (e) {
  // a damaged gzip stream (zlib's words), or an input that failed while it was read
  fail(`cannot read ${opts.file === '-' ? 'stdin' : opts.file}: ${(e as Error).message}`);
}
const summary = parser.end();
await out.end();
if (rawIndex && opts.rawIndex !== undefined) {
  await writeRawIndex(rawIndex, source, sourceWhole, opts.rawIndex).catch((e: Error) =>
    fail(`--raw-index ${opts.rawIndex}: ${e.message}`),
  );
}
removeTemps();
process.stderr.write(`${describe(summary)}\n`);
if (summary.understood + summary.raw === 0) fail(`no kubelet lines in ${summary.lines} lines`, 1);
