/**
 * The Web Worker that parses a kubelet log off the page's thread. It reads the File in 1 MiB slices (inflating
 * them first when the file is gzip-compressed, and making UTF-16 text with a byte-order mark UTF-8),
 * decodes them as UTF-8 (bad bytes become U+FFFD) DECODE_BYTES at a time, feeds the core parser, and posts
 * progress after every slice and events in batches, so the page never holds the whole text and never blocks on
 * the parse.
 *
 * Besides the events it records where each line starts in the file (8 bytes a line, sent at the end), so the
 * page can read any line an event points at with File.slice instead of keeping the text; for a gzip file, in
 * its text, which is sent back as a Blob (so for a UTF-16 file too).
 */
import { asUtf8, DECODE_BYTES, KubeletLogParser, utf16Of } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import type { ParseMessage, ParseRequest } from './protocol.ts';

const SLICE_BYTES = 1 << 20;
const BATCH = 1_000;

interface WorkerScope {
  postMessage(message: ParseMessage, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ParseRequest>) => void) | null;
}
const scope = self as unknown as WorkerScope;

/** Line starts in a growing Float64Array (line 1 starts at 0). */
class LineStarts {
  private buf = new Float64Array(1 << 14);
  length = 1;
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

async function parse(req: ParseRequest): Promise<void> {
  const { file } = req;
  let batch: TraceEvent[] = [];
  const parser = new KubeletLogParser({
    ...(req.year !== undefined ? { year: req.year } : {}),
    onEvent: (ev) => {
      batch.push(ev);
      if (batch.length >= BATCH) {
        scope.postMessage({ type: 'events', events: batch });
        batch = [];
      }
    },
  });
  const magic = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  const gzip = magic[0] === 0x1f && magic[1] === 0x8b;
  // the text of a gzip or UTF-16 file (as UTF-8), kept (as a Blob the browser may keep on disk) for the lines
  // the replay shows: the line starts below are offsets in it, not in the file
  const keep = gzip || utf16Of(magic) !== undefined;
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const decoder = new TextDecoder('utf-8');
  const starts = new LineStarts();
  let pos = 0;
  for await (const bytes of asUtf8(gzip ? inflated(file) : slices(file))) {
    for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) starts.push(pos + i + 1);
    for (let at = 0; at < bytes.length; at += DECODE_BYTES)
      parser.feed(decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true }));
    if (keep) parts.push(bytes as Uint8Array<ArrayBuffer>);
    pos += bytes.length;
  }
  parser.feed(decoder.decode());
  const summary = parser.end();
  if (batch.length > 0) scope.postMessage({ type: 'events', events: batch });
  const lineStarts = starts.done();
  const text = keep ? new Blob(parts, { type: 'text/plain' }) : undefined;
  scope.postMessage({ type: 'done', summary, lineStarts, ...(text ? { text } : {}) }, [lineStarts.buffer]);
}

scope.onmessage = (e) => {
  parse(e.data).catch((err: unknown) => {
    scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  });
};
