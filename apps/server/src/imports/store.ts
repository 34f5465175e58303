/**
 * Imported kubelet logs kept under `<data-dir>/imports/<id>/`: the log as sent (`log.txt`), its trace
 * (`trace.ndjson`, one event per line, seq from 1), a sparse index (`index.json`: the byte offset of every
 * INDEX_EVERY-th event and line, so a page or a line is read without scanning the file from its start), its
 * unread entries (`raw.ndjson`: the lines no family read, which make no event, by their byte offsets in
 * log.txt; raw-file.ts, raw-read.ts) and `meta.json` (name, size, lines, nodes, pods, time range, created, the
 * importer's summary).
 *
 * write() streams the body to log.txt, which the parse thread reads as it grows and turns into trace.ndjson
 * and raw.ndjson (import-files.ts: a slow parse never holds the event loop, and neither the text nor the
 * events are ever held whole). The store's quota (ImportQuota) is checked before the body is read, as it
 * grows, and once it is whole. Everything is written under `.tmp-<id>` (files 0600, directories 0700: the
 * logs are the node's, the token guards them), fsynced, then renamed into place and the directory fsynced: an
 * import the server acknowledged is on disk, and one cut short leaves nothing a list shows.
 *
 * Ids are 22 characters of base64url (128 random bits); isImportId is the only way a path is made from one.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImportSummary } from '@syncscope/core/kubelet-log';
import { DIR_MODE, FILE_MODE } from '../store/atomic-file.ts';
import { disk, type ImportIndex, writeImportFiles } from './import-files.ts';
import { ParsePool } from './parse-thread.ts';
import { type RawItem, type RawPage, type RawQuery, rawEvents, rawPage } from './raw-read.ts';

export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;
const INDEX_EVERY = 1024;
/** The longest line /log answers; the rest is cut. */
const MAX_LINE_BYTES = 16 * 1024;

const ID = /^[A-Za-z0-9_-]{22}$/;
const isImportId = (id: string): boolean => ID.test(id);

export interface ImportMeta {
  id: string;
  name: string;
  /** bytes of the log */
  size: number;
  lines: number;
  nodes: string[];
  pods: number;
  events: number;
  /** RFC 3339, or null when no event has a time */
  firstTime: string | null;
  lastTime: string | null;
  created: string;
  summary: ImportSummary;
}

/** Thrown when the body (inflated, when it is gzip) passes MAX_IMPORT_BYTES; nothing is kept. */
export class TooLarge extends Error {}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  const fh = await disk(path, () => open(path, 'wx', FILE_MODE));
  try {
    await disk(path, () => fh.writeFile(JSON.stringify(value)));
    await disk(path, () => fh.sync());
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * How much the store keeps: at most maxCount imports and maxBytes on disk in all (the log, its trace and
 * index). An import past either is refused (QuotaExceeded: 403 Forbidden, as the API server refuses an object
 * past a ResourceQuota), never made room for by deleting an older one: a shared link stays valid until its
 * import is deleted by hand.
 */
export interface ImportQuota {
  maxCount: number;
  maxBytes: number;
}

export const DEFAULT_IMPORT_QUOTA: ImportQuota = { maxCount: 100, maxBytes: 1024 * 1024 * 1024 };

/** An import the quota does not allow; nothing is kept. The message is the API server's quota refusal. */
export class QuotaExceeded extends Error {
  constructor(
    readonly resource: 'count' | 'bytes',
    name: string,
    readonly requested: number,
    readonly used: number,
    readonly limited: number,
  ) {
    const flag = resource === 'count' ? '--imports-max-count' : '--imports-max-bytes';
    super(
      `imports "${name}" is forbidden: exceeded quota: imports, requested: ${resource}=${requested}, ` +
        `used: ${resource}=${used}, limited: ${resource}=${limited} (${flag}; delete an import to make room)`,
    );
  }
}

/** Bytes of the files directly in `dir`. */
async function dirBytes(dir: string): Promise<number> {
  let sum = 0;
  for (const name of await readdir(dir)) sum += (await stat(join(dir, name))).size;
  return sum;
}

export class ImportStore {
  private readonly used = { count: 0, bytes: 0 };
  private readonly sizes = new Map<string, number>();
  /** imports being written now: each counts against maxCount already */
  private writing = 0;
  private readonly parsers = new ParsePool(INDEX_EVERY);

  constructor(
    readonly dir: string,
    readonly quota?: ImportQuota,
  ) {}

  /** Creates the directory, drops what an interrupted import left, counts what is kept. Called once before serving. */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    for (const name of await readdir(this.dir)) {
      if (name.startsWith('.tmp-')) await rm(join(this.dir, name), { recursive: true, force: true });
      else if (isImportId(name)) {
        const bytes = await dirBytes(join(this.dir, name)).catch(() => 0);
        this.sizes.set(name, bytes);
        this.used.count++;
        this.used.bytes += bytes;
      }
    }
  }

  /**
   * Parses and keeps a log read from `body`; resolves once it is on disk. A write the disk refuses (full,
   * read-only, I/O error) rejects with a StoreWriteError naming the file; like every other failure it leaves
   * nothing behind.
   */
  async write(
    body: AsyncIterable<Buffer | string>,
    name: string,
    expectedBytes?: number,
  ): Promise<ImportMeta> {
    const { quota, used } = this;
    if (quota && used.count + this.writing >= quota.maxCount)
      throw new QuotaExceeded('count', name, 1, used.count + this.writing, quota.maxCount);
    if (quota && expectedBytes !== undefined && used.bytes + expectedBytes > quota.maxBytes)
      throw new QuotaExceeded('bytes', name, expectedBytes, used.bytes, quota.maxBytes);
    const id = randomBytes(16).toString('base64url');
    const tmp = join(this.dir, `.tmp-${id}`);
    let done = false;
    const parser = this.parsers.acquire();
    this.writing++;
    try {
      await disk(tmp, () => mkdir(tmp, { mode: DIR_MODE }));
      const admit = (logBytes: number, traceBytes: number) => {
        if (logBytes > MAX_IMPORT_BYTES) throw new TooLarge();
        if (quota && used.bytes + logBytes + traceBytes > quota.maxBytes)
          throw new QuotaExceeded('bytes', name, logBytes + traceBytes, used.bytes, quota.maxBytes);
      };
      const files = await writeImportFiles({ dir: tmp, body, parser, indexEvery: INDEX_EVERY, admit });
      const { size, summary, index } = files;
      const meta: ImportMeta = {
        id,
        name,
        size,
        lines: summary.lines,
        nodes: summary.nodes,
        pods: summary.pods,
        events: summary.events,
        firstTime: iso(summary.firstTime),
        lastTime: iso(summary.lastTime),
        created: new Date().toISOString(),
        summary,
      };
      await writeJson(join(tmp, 'index.json'), index);
      await writeJson(join(tmp, 'meta.json'), meta);
      const stored = await dirBytes(tmp);
      if (quota && used.bytes + stored > quota.maxBytes)
        throw new QuotaExceeded('bytes', name, stored, used.bytes, quota.maxBytes);
      await disk(tmp, () => syncDir(tmp));
      await disk(this.dir, () => rename(tmp, join(this.dir, id)));
      await disk(this.dir, () => syncDir(this.dir));
      done = true;
      used.count++;
      used.bytes += stored;
      this.sizes.set(id, stored);
      return meta;
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    } finally {
      this.writing--;
      // a thread still parsing an import cut short is not given back (its answer would reach the next one)
      if (done) this.parsers.release(parser);
      else await parser.close();
    }
  }

  /** Ends the idle parse thread (the server is closing). */
  async close(): Promise<void> {
    await this.parsers.close();
  }

  /** What the kept imports hold now: their number and their bytes on disk. */
  usage(): { count: number; bytes: number } {
    return { ...this.used };
  }

  /** The meta of every import, oldest first. */
  async list(): Promise<ImportMeta[]> {
    const out: ImportMeta[] = [];
    for (const name of await readdir(this.dir)) {
      if (!isImportId(name)) continue;
      const meta = await this.meta(name);
      if (meta) out.push(meta);
    }
    return out.sort((a, b) => a.created.localeCompare(b.created));
  }

  /** The meta of one import, or undefined when there is none with that id (or the id is not one). */
  async meta(id: string): Promise<ImportMeta | undefined> {
    if (!isImportId(id)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.dir, id, 'meta.json'), 'utf8')) as ImportMeta;
    } catch {
      return undefined;
    }
  }

  private async index(id: string): Promise<ImportIndex> {
    return JSON.parse(await readFile(join(this.dir, id, 'index.json'), 'utf8')) as ImportIndex;
  }

  /** Events with seq > since, at most `limit`, oldest first (the import must exist: meta() first). */
  async page(id: string, since: number, limit: number): Promise<unknown[]> {
    const idx = await this.index(id);
    const k = Math.min(Math.floor(since / INDEX_EVERY), idx.eventOffsets.length - 1);
    const start = idx.eventOffsets[k];
    if (start === undefined) return [];
    let seq = k * INDEX_EVERY;
    const items: unknown[] = [];
    for await (const line of readLines(join(this.dir, id, 'trace.ndjson'), start)) {
      seq++;
      if (seq <= since) continue;
      items.push(JSON.parse(line));
      if (items.length >= limit) break;
    }
    return items;
  }

  /** Line `n` (1-based) of the log as sent, cut at MAX_LINE_BYTES; undefined past the end. */
  async line(id: string, n: number): Promise<string | undefined> {
    const idx = await this.index(id);
    const k = Math.floor((n - 1) / INDEX_EVERY);
    const start = idx.lineOffsets[k];
    if (start === undefined) return undefined;
    let no = k * INDEX_EVERY;
    for await (const line of readLines(join(this.dir, id, 'log.txt'), start, MAX_LINE_BYTES)) {
      if (++no === n) return line.replace(/\r$/, '');
    }
    return undefined;
  }

  /** A page of an import's unread entries (the import must exist: meta() first). */
  raw(id: string, query: RawQuery): Promise<RawPage> {
    return rawPage(join(this.dir, id), query);
  }

  /** Every unread entry of an import in order, to merge with its trace (the import must exist). */
  rawEvents(id: string): AsyncGenerator<RawItem> {
    return rawEvents(join(this.dir, id));
  }

  /** Removes an import; false when there was none. */
  async remove(id: string): Promise<boolean> {
    if (!(await this.meta(id))) return false;
    await rm(join(this.dir, id), { recursive: true, force: true });
    await syncDir(this.dir);
    const bytes = this.sizes.get(id);
    if (bytes !== undefined) {
      this.sizes.delete(id);
      this.used.count--;
      this.used.bytes -= bytes;
    }
    return true;
  }
}

/**
 * The lines of a file from byte `start`, each cut at `maxBytes` (the rest of a longer line is skipped
 * without being kept). Stops when the caller stops iterating.
 */
async function* readLines(
  path: string,
  start: number,
  maxBytes = Number.MAX_SAFE_INTEGER,
): AsyncGenerator<string> {
  const stream = createReadStream(path, { start, highWaterMark: 256 * 1024 });
  let parts: Buffer[] = [];
  let kept = 0;
  try {
    for await (const piece of stream) {
      const chunk = piece as Buffer;
      let from = 0;
      for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, from)) {
        if (kept < maxBytes) parts.push(chunk.subarray(from, Math.min(nl, from + maxBytes - kept)));
        yield Buffer.concat(parts).toString('utf8');
        parts = [];
        kept = 0;
        from = nl + 1;
      }
      if (from < chunk.length && kept < maxBytes) {
        const rest = chunk.subarray(from, Math.min(chunk.length, from + maxBytes - kept));
        parts.push(Buffer.from(rest));
        kept += rest.length;
      }
    }
    if (parts.length > 0) yield Buffer.concat(parts).toString('utf8');
  } finally {
    stream.destroy();
  }
}
