/**
 * How the import-log command reads its input into the parser: a file in blocks (newest first read backwards,
 * blocks pasted out of time order merged by time, never held whole), or stdin or an inflated gzip or UTF-16
 * file copied to a temporary file and read from there; what it found out on the way (read backwards, merged,
 * where the lines are) is kept for the summary and the raw-line index.
 */
import { createReadStream, createWriteStream, readSync } from 'node:fs';
import { mkdtemp, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  asUtf8,
  blockOrder,
  type KubeletLogParser,
  looksReversed,
  readLinesBackward,
  StampBytes,
  StampScanner,
  utf16Of,
} from '@syncscope/core/kubelet-log';
import { isGzip, maybeGunzip } from './gzip-input.ts';
import { fail, temps } from './import-log-cli.ts';
import type { NdjsonOut } from './import-log-out.ts';
import { LineStarts } from './imports/raw-file.ts';
import { BlockDecoder, LineFile } from './log-blocks.ts';

/** where events go: encoded here (NdjsonOut) or on a second thread (EncoderPipe); the same bytes either way */
export type Out = Pick<NdjsonOut, 'push' | 'drain' | 'end'>;

const BLOCK = 1 << 20;
/** a file pasted out of order is read whole up to this size; a larger one is read as it comes */
const WHOLE_MAX = 256 * 1024 * 1024;
const SNIFF_LINES = 400;

/** a gzip input that ends early is read as far as it goes, and said so */
export function cut(what: string): void {
  process.stderr.write(`import-log: ${what}: the gzip stream ends early (cut short?); read what it holds\n`);
}

function firstLines(buf: Buffer): string[] {
  return buf.toString('utf8').split('\n', SNIFF_LINES);
}

/**
 * One input's reading: the parser is fed its lines in time order, `out` drained as it goes. The fields say
 * what the reading found, for the summary and the raw-line index.
 */
export class LogReader {
  /** whether the input was newest first and read backwards from its end */
  readBackwards = false;
  /** how many blocks a file pasted out of order was merged from (0: read as it came) */
  merged = 0;
  /** the file the input was last read from (itself, or a copy of stdin or of a gzip or UTF-16 file) */
  source: string | undefined;
  /** whether `source` holds the whole input (stdin past WHOLE_MAX is read on as it comes, not copied) */
  sourceWhole = true;

  /**
   * `opts`: the year and zone the first pass reads line headers with (as the parser does); `onLines`, when
   * given, gets where each line of the file starts from the first pass over it, before the parser gets a line
   * of it (not called for an input read backwards or read as it comes)
   */
  constructor(
    private readonly opts: { year?: number; tz?: string },
    private readonly onLines?: (lines: LineStarts, size: number) => void,
  ) {}

  async importFile(path: string, parser: KubeletLogParser, out: Out): Promise<void> {
    const fh = await open(path, 'r').catch((e: Error) => fail(`cannot read ${path}: ${e.message}`));
    try {
      const size = (await fh.stat()).size;
      const read = async (start: number, end: number): Promise<Uint8Array> => {
        const b = Buffer.allocUnsafe(end - start);
        const { bytesRead } = await fh.read(b, 0, end - start, start);
        return b.subarray(0, bytesRead);
      };
      const head = Buffer.from(await read(0, Math.min(size, BLOCK)));
      if (!isGzip(head) && !utf16Of(head)) this.source = path;
      if (isGzip(head)) {
        await this.importStream(
          asUtf8(maybeGunzip(createReadStream(path), { onCut: () => cut(path) })),
          parser,
          out,
        );
        return;
      }
      if (utf16Of(head)) {
        await this.importStream(asUtf8(createReadStream(path)), parser, out);
        return;
      }
      if (looksReversed(firstLines(head))) {
        this.readBackwards = true;
        for await (const l of readLinesBackward(read, size, BLOCK)) {
          parser.feedLine(l.text, l.no);
          if (l.no % 4096 === 0) await out.drain();
        }
        return;
      }
      // one buffer for every block: its text is a copy
      const block = Buffer.allocUnsafeSlow(BLOCK);
      const order = size <= WHOLE_MAX ? await this.blocksOf(fh, size, block) : undefined;
      if (order) {
        // blocks pasted out of time order: each block is read from the file through a window of its own
        // (LineFile), in the merged order; the file is never held
        const lines = LineFile.open(fh.fd, size);
        for (let j = 0; j < order.order.length; j++) {
          const i = order.order[j] as number;
          parser.feedLine(lines.line(i), i + 1);
          if (j % 4096 === 4095) await out.drain();
        }
        this.merged = order.blocks;
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
   * Reads the file once more, from its bytes; memory: about 16 bytes a line (8 more for `onLines`).
   */
  private async blocksOf(
    fh: Awaited<ReturnType<typeof open>>,
    size: number,
    block: Buffer,
  ): Promise<{ order: Uint32Array; blocks: number } | undefined> {
    const { year, tz } = clockOf(this.opts);
    const scan = new StampScanner(year, tz);
    // read from the bytes: most lines' headers need no decoding (StampBytes)
    const bytes = new StampBytes(scan);
    const starts = this.onLines ? new LineStarts() : undefined;
    let pos = 0;
    while (pos < size) {
      const got = readSync(fh.fd, block, 0, Math.min(block.length, size - pos), pos);
      if (got === 0) break;
      bytes.feed(block.subarray(0, got));
      starts?.scan(block.subarray(0, got), pos);
      pos += got;
    }
    bytes.end();
    if (starts) this.onLines?.(starts, pos);
    const { order, blocks } = blockOrder(scan.all);
    return order ? { order, blocks } : undefined;
  }

  /**
   * stdin, or a gzip file's inflated stream: copied to a temporary file and read from there as a file is (newest
   * first read backwards, blocks out of time order merged), memory bounded by the file's reader. Past WHOLE_MAX
   * (unless newest first) the copy stops: what was copied is read forwards, then the rest as it comes, in the
   * reorder window. The copy is kept until the raw-line index has its offsets from it (removeTemps).
   */
  async importStream(input: AsyncIterable<Uint8Array>, parser: KubeletLogParser, out: Out): Promise<void> {
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
      await this.importFile(path, parser, out);
      return;
    }
    this.source = path;
    this.sourceWhole = false;
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
}

/**
 * Reads bytes [0, size) of the file a block at a time into `block`, handing each whole line's text to `feed`
 * (BlockDecoder: a line cut by a block's end waits for the next); `between` runs after each block. The reads
 * are synchronous: the command has nothing else to do meanwhile, and a read handed to libuv's thread pool
 * leaves this thread waiting until that one gets a core (long, on a busy machine).
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
    const bytesRead = readSync(fh.fd, block, 0, Math.min(BLOCK, size - pos), pos);
    if (bytesRead === 0) break;
    dec.feed(block.subarray(0, bytesRead), feed);
    if (between) {
      await between();
      // a turn of the event loop, as an asynchronous read gave: the encoder's replies and the sink's callbacks
      // come in and free their buffers for reuse
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  feed(dec.end());
}

function clockOf(o: { year?: number; tz?: string }): { year: number; tz?: string } {
  const year = o.year ?? new Date().getUTCFullYear();
  return o.tz === undefined ? { year } : { year, tz: o.tz };
}
