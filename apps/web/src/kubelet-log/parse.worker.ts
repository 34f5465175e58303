/**
 * The Web Worker that parses a kubelet log off the page's thread. It reads the File in 1 MiB slices (inflating
 * them first when the file is gzip-compressed, and making UTF-16 text with a byte-order mark UTF-8),
 * decodes them as UTF-8 (bad bytes become U+FFFD) DECODE_BYTES at a time, feeds the core parser, and posts
 * progress after every slice and events in batches, so the page never holds the whole text and never blocks on
 * the parse.
 *
 * Besides the events it records where each line starts in the file (8 bytes a line, sent at the end), so the
 * page can read any line an event points at with File.slice instead of keeping the text; for a gzip file, in
 * its text, which is sent back as a Blob (so for a UTF-16 file too). Beside the parse it reads each line's time
 * (StampScanner): a log whose lines fall into blocks out of time order is parsed again, its lines in the order
 * that merges the blocks by time (blockOrder), as the server's import does, after a `restart` to the page.
 *
 * The lines no family reads make no event: each such entry goes out as its raw-line record (core
 * raw-record.ts, the server's `raw.ndjson` line: its place among the events, node, lines, pod, a check of its
 * message and its first line's byte offsets, from the line starts above), with the batch of events it falls
 * among; the page reads its text back from the bytes by those offsets.
 */
import {
  asUtf8,
  blockOrder,
  DECODE_BYTES,
  KubeletLogParser,
  type RawEntrySink,
  rawEntryOf,
  rawRecordLine,
  StampScanner,
  utf16Of,
} from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import type { ParseMessage, ParseRequest } from './protocol.ts';

const SLICE_BYTES = 1 << 20;
const BATCH = 1_000;
/** a log in blocks out of time order is parsed again, merged, up to this size (it is then held whole) */
const MERGE_MAX = 256 * 1024 * 1024;
/** the longest part of a line the merge reads (the server's LineFile reads as much) */
const MAX_LINE_BYTES = 4 * (1 << 20) + 4;

interface WorkerScope {
  postMessage(message: ParseMessage, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ParseRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;

/** Line starts in a growing Float64Array (line 1 starts at 0). */
class LineStarts {
  private buf = new Float64Array(1 << 14);
  length = 1;
  /** where line n (from 1) starts, once it is known */
  at(n: number): number | undefined {
    return n >= 1 && n <= this.length ? this.buf[n - 1] : undefined;
  }
  push(offset: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = offset;
  }
  done(): Float64Array {
    return this.buf.slice(0, this.length);
  }
}

/** the file in 1 MiB slices, progress posted after each */
async function* slices(file: Blob): AsyncGenerator<Uint8Array> {
  for (let pos = 0; pos < file.size; pos += SLICE_BYTES) {
    const bytes = new Uint8Array(await file.slice(pos, pos + SLICE_BYTES).arrayBuffer());
    yield bytes;
    scope.postMessage({ type: 'progress', bytes: Math.min(file.size, pos + bytes.length), total: file.size });
  }
}

/**
 * A gzip file (a rotated kubelet.log.1.gz) inflated by the browser's DecompressionStream: its slices are written
 * in (progress is of the compressed file) while the text is read out. Damage, or a file cut short, rejects.
 */
async function* inflated(file: Blob): AsyncGenerator<Uint8Array> {
  const ds = new DecompressionStream('gzip');
  const writer = ds.writable.getWriter();
  const feeding = (async () => {
    for await (const bytes of slices(file)) await writer.write(bytes as Uint8Array<ArrayBuffer>);
    await writer.close();
  })();
  // a failure here fails the reading below as well, with the same error
  feeding.catch(() => undefined);
  const reader = ds.readable.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) yield r.value;
  } catch (e) {
    throw new Error(`the gzip file cannot be inflated (damaged or cut short): ${(e as Error).message}`);
  }
  await feeding;
}

const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Line i (from 0) of the log's bytes, without its line end (and a byte-order mark that starts the log). */
function lineText(all: Uint8Array, starts: LineStarts, i: number, size: number): string {
  const from = starts.at(i + 1) as number;
  const next = starts.at(i + 2);
  let to = Math.min(next === undefined ? size : next - 1, from + MAX_LINE_BYTES);
  let at = from;
  if (i === 0 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf) at += 3;
  if (to > at && all[to - 1] === 13) to--;
  return lineDecoder.decode(all.subarray(at, to));
}

async function parse(req: ParseRequest): Promise<void> {
  const { file } = req;
  let batch: TraceEvent[] = [];
  let raws = '';
  let rawCount = 0;
  const post = () => {
    scope.postMessage({ type: 'events', events: batch, raws });
    batch = [];
    raws = '';
    rawCount = 0;
  };
  const starts = new LineStarts();
  let pos = 0;
  const rawEntries: RawEntrySink = {
    entry(f) {
      // an entry leaves after its first line was read whole: the next line's start (or the input's end) is known
      raws += rawRecordLine(rawEntryOf(f), starts.at(f.line) ?? -1, starts.at(f.line + 1) ?? pos);
      if (batch.length + ++rawCount >= BATCH) post();
    },
  };
  const year = req.year ?? new Date().getUTCFullYear();
  const newParser = (reversed?: boolean) =>
    new KubeletLogParser({
      year,
      ...(reversed === undefined ? {} : { reversed }),
      rawEntries,
      onEvent: (ev) => {
        batch.push(ev);
        if (batch.length + rawCount >= BATCH) post();
      },
    });
  const parser = newParser();
  // each line's time, beside the parse: whether the log falls into blocks out of time order
  const scan = new StampScanner(year);
  const magic = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzip = magic[0] === 0x1f && magic[1] === 0x8b;
  // the text of a gzip or UTF-16 file (as UTF-8), kept (as a Blob the browser may keep on disk) for the lines
  // the replay shows: the line starts below are offsets in it, not in the file
  const keep = gzip || utf16Of(magic) !== undefined;
  scope.postMessage({ type: 'start', kept: keep });
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of asUtf8(gzip ? inflated(file) : slices(file))) {
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) starts.push(pos + i + 1);
    for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
      const text = decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true });
      parser.feed(text);
      scan.feed(text);
    }
    if (keep) parts.push(bytes as Uint8Array<ArrayBuffer>);
    pos += bytes.length;
  }
  const rest = decoder.decode();
  parser.feed(rest);
  scan.feed(rest);
  scan.end();
  let summary = parser.end();
  if (batch.length + rawCount > 0) post();
  const text = keep ? new Blob(parts, { type: 'text/plain' }) : undefined;
  const { order, blocks } = pos <= MERGE_MAX ? blockOrder(scan.all) : { order: undefined, blocks: 1 };
  if (order && !summary.reversed) {
    // blocks out of time order (a log pasted in pieces, several nodes' logs one after the other): the page
    // drops what it has, and the log is parsed again with its lines in the order that merges the blocks by
    // time, as the server's import does
    scope.postMessage({ type: 'restart' });
    const all = new Uint8Array(await (text ?? file).arrayBuffer());
    const merged = newParser(false);
    for (const i of order) merged.feedLine(lineText(all, starts, i, pos), i + 1);
    summary = merged.end();
    summary.blocks = blocks;
    if (batch.length + rawCount > 0) post();
  }
  const lineStarts = starts.done();
  scope.postMessage({ type: 'done', summary, lineStarts, ...(text ? { text } : {}) }, [lineStarts.buffer]);
}

scope.onmessage = (e) => {
  parse(e.data).catch((err: unknown) => {
    scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  });
};
