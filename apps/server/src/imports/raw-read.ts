/**
 * Reading an import's unread entries back (raw.ndjson, raw-file.ts) as the log.raw events they stand for, each
 * message read from log.txt by its byte offsets: a page of them (of one node, holding a text) for the raw-line
 * route, or all of them in order for a reader that merges them with the trace (the explain route). Time is
 * linear in the entries passed over and the lines read; memory is the page. An import kept before the raw-line
 * file existed has none: its trace holds its log.raw events.
 *
 * Damaged records of the side file are passed over and counted (raw-records.ts); a page's messages are
 * bounded by MAX_PAGE_CHARS whatever its records say.
 */
import type { FileHandle } from 'node:fs/promises';
import { entryText, type RawRecord, rawEventOf } from '@syncscope/core/kubelet-log';
import type { TraceOf } from '@syncscope/core/trace';
import { openRegular, storedEntries, unreadable } from './raw-records.ts';

/** The most entries one page holds (a log's every unread line, for a reader that merges them). */
export const MAX_RAW_PAGE = 50_000;

/** A page ends early once its messages hold this many UTF-16 units (its `next` goes on from there). */
const MAX_PAGE_CHARS = 1 << 25;

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
  /** how many records of the side file are damaged (passed over, not counted as entries); absent when none */
  damaged?: number;
}

/** Bytes of log.txt read at a time: entries lie mostly in file order, so most are sliced from the last read. */
const WINDOW = 1 << 20;

/**
 * log.txt read through a window: a range inside the last read is sliced from it, any other is read with the
 * window starting at it. One read per MiB for entries in file order (a log's unread lines, most of them) instead
 * of one per entry. A range is at most MAX_RANGE_BYTES (raw-records.ts), so is the window. The file is opened
 * at the first read (an import without entries never needs it); one that cannot be read is a 503 Status.
 */
class LogWindow {
  private buf = Buffer.alloc(0);
  private at = 0;
  private fh: FileHandle | undefined;
  constructor(private readonly dir: string) {}

  async bytes(start: number, end: number): Promise<Buffer> {
    if (start < this.at || end > this.at + this.buf.length) {
      this.fh ??= await openRegular(this.dir, 'log.txt', false);
      const want = Math.max(end - start, WINDOW);
      const buf = Buffer.allocUnsafe(want);
      const got = await this.fh?.read(buf, 0, want, start).catch((e: unknown) => {
        throw unreadable(this.dir, 'log.txt', e);
      });
      this.buf = buf.subarray(0, got?.bytesRead ?? 0);
      this.at = start;
    }
    const from = Math.min(start - this.at, this.buf.length);
    return this.buf.subarray(from, Math.max(from, Math.min(end, this.at + this.buf.length) - this.at));
  }

  async close(): Promise<void> {
    await this.fh?.close();
  }
}

/**
 * An entry's message: kept, or the tail of its first line in the log (the whole line if the check fails); ''
 * when the log does not hold the line. Only the range's first line is read (a range is one line with its LF).
 */
async function textOf(log: LogWindow, s: RawRecord): Promise<string> {
  if (s.entry.text !== undefined) return s.entry.text;
  if (s.start < 0) return '';
  const bytes = await log.bytes(s.start, s.end);
  const nl = bytes.indexOf(10);
  let line = (nl >= 0 ? bytes.subarray(0, nl) : bytes).toString('utf8');
  if (line.endsWith('\r')) line = line.slice(0, -1);
  return entryText(s.entry, line) ?? line;
}

/** Every unread entry of the import kept in `dir`, in order, as its log.raw event; damaged records passed over. */
export async function* rawEvents(dir: string): AsyncGenerator<RawItem> {
  const log = new LogWindow(dir);
  try {
    for await (const s of storedEntries(dir))
      if (s) yield { after: s.entry.after, event: rawEventOf(s.entry, await textOf(log, s), 0) };
  } finally {
    await log.close();
  }
}

/** A page of the unread entries of the import kept in `dir`. */
export async function rawPage(dir: string, q: RawQuery): Promise<RawPage> {
  const items: RawItem[] = [];
  let [total, n, last, damaged, chars] = [0, 0, 0, 0, 0];
  let more = false;
  const log = new LogWindow(dir);
  try {
    for await (const s of storedEntries(dir)) {
      if (!s) {
        damaged++;
        continue;
      }
      n++;
      if (q.node !== undefined && s.entry.node !== q.node) continue;
      const wanted = n > q.since && items.length < q.limit && chars < MAX_PAGE_CHARS;
      // without a search, only the entries of the page are read
      const text = q.q !== undefined || wanted ? await textOf(log, s) : '';
      if (q.q !== undefined && !text.includes(q.q)) continue;
      total++;
      if (wanted) {
        items.push({ after: s.entry.after, event: rawEventOf(s.entry, text, 0) });
        chars += text.length;
        last = n;
      } else if (n > q.since) more = true;
    }
  } finally {
    await log.close();
  }
  return { items, total, next: more ? last : null, ...(damaged > 0 ? { damaged } : {}) };
}
