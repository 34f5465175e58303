/**
 * Reading an import's unread entries back (raw.ndjson, raw-file.ts) as the log.raw events they stand for, each
 * message read from log.txt by its byte offsets: a page of them (of one node, holding a text) for the raw-line
 * route, or all of them in order for a reader that merges them with the trace (the explain route). Time is
 * linear in the entries passed over and the lines read; memory is the page. An import kept before the raw-line
 * file existed has none: its trace holds its log.raw events.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { entryText, type RawRecord, rawEventOf, readRawRecord } from '@syncscope/core/kubelet-log';
import type { TraceOf } from '@syncscope/core/trace';

/** The most entries one page holds (a log's every unread line, for a reader that merges them). */
export const MAX_RAW_PAGE = 50_000;

export interface RawQuery {
  /** only this node's entries */
  node?: string;
  /** only entries whose message holds this (case-sensitive) */
  q?: string;
  /** only entries after the first `since` (in the file's order) */
  since: number;
  limit: number;
}

/** An unread entry as its log.raw event (seq 0), and how many trace events come before it. */
export interface RawItem {
  after: number;
  event: TraceOf<'log.raw'>;
}

export interface RawPage {
  items: RawItem[];
  /** how many entries match (node and q) in the whole log */
  total: number;
  /** `since` for the next page, or null when this one holds the last */
  next: number | null;
}

/** The stored entries in order; none when the import has no raw-line file. */
async function* storedEntries(dir: string): AsyncGenerator<RawRecord> {
  const input = createReadStream(join(dir, 'raw.ndjson'));
  const missing = new Promise<boolean>((res) => {
    input.once('error', (e: NodeJS.ErrnoException) => res(e.code === 'ENOENT'));
    input.once('open', () => res(false));
  });
  if (await missing) return;
  const rl = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const l of rl) if (l !== '') yield readRawRecord(l);
  } finally {
    rl.close();
    input.destroy();
  }
}

/** Bytes of log.txt read at a time: entries lie mostly in file order, so most are sliced from the last read. */
const WINDOW = 1 << 20;

/**
 * log.txt read through a window: a range inside the last read is sliced from it, any other is read with the
 * window starting at it. One read per MiB for entries in file order (a log's unread lines, most of them) instead
 * of one per entry.
 */
class LogWindow {
  private buf = Buffer.alloc(0);
  private at = 0;
  constructor(private readonly fh: FileHandle) {}

  async bytes(start: number, end: number): Promise<Buffer> {
    if (start < this.at || end > this.at + this.buf.length) {
      const want = Math.max(end - start, WINDOW);
      const buf = Buffer.allocUnsafe(want);
      const { bytesRead } = await this.fh.read(buf, 0, want, start);
      this.buf = buf.subarray(0, bytesRead);
      this.at = start;
    }
    return this.buf.subarray(start - this.at, Math.min(end, this.at + this.buf.length) - this.at);
  }
}

/** An entry's message: kept, or the tail of its first line in the log (the whole line if the check fails). */
async function textOf(log: LogWindow, s: RawRecord): Promise<string> {
  if (s.entry.text !== undefined) return s.entry.text;
  if (s.start < 0 || s.end < s.start) return '';
  let line = (await log.bytes(s.start, s.end)).toString('utf8');
  if (line.endsWith('\n')) line = line.slice(0, -1);
  if (line.endsWith('\r')) line = line.slice(0, -1);
  return entryText(s.entry, line) ?? line;
}

/** Every unread entry of the import kept in `dir`, in order, as its log.raw event. */
export async function* rawEvents(dir: string): AsyncGenerator<RawItem> {
  const fh = await open(join(dir, 'log.txt'), 'r');
  const log = new LogWindow(fh);
  try {
    for await (const s of storedEntries(dir))
      yield { after: s.entry.after, event: rawEventOf(s.entry, await textOf(log, s), 0) };
  } finally {
    await fh.close();
  }
}

/** A page of the unread entries of the import kept in `dir`. */
export async function rawPage(dir: string, q: RawQuery): Promise<RawPage> {
  const items: RawItem[] = [];
  let [total, n, last] = [0, 0, 0];
  let more = false;
  const fh = await open(join(dir, 'log.txt'), 'r');
  const log = new LogWindow(fh);
  try {
    for await (const s of storedEntries(dir)) {
      n++;
      if (q.node !== undefined && s.entry.node !== q.node) continue;
      const wanted = n > q.since && items.length < q.limit;
      // without a search, only the entries of the page are read
      const text = q.q !== undefined || wanted ? await textOf(log, s) : '';
      if (q.q !== undefined && !text.includes(q.q)) continue;
      total++;
      if (wanted) {
        items.push({ after: s.entry.after, event: rawEventOf(s.entry, text, 0) });
        last = n;
      } else if (n > q.since) more = true;
    }
  } finally {
    await fh.close();
  }
  return { items, total, next: more ? last : null };
}
