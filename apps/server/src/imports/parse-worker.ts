/**
 * The worker side of ParseThread (parse-thread.ts): an import's log parsed off the server's event loop, read
 * from the log as kept, its trace and unread entries written here, so none of them crosses between threads.
 *
 * In: `{start: {log, trace, raw}}` (the descriptors of log.txt, being written by the server's thread, and of
 * the empty trace.ndjson and raw.ndjson: a fresh parser), then `{feed: n}` each time the log holds more bytes
 * (the first n are on disk: they are read from where the last feed stopped, a block at a time, and parsed),
 * then `{end: true}`; the thread then waits for the next `start` (ParsePool keeps it for the next import).
 * Each answer carries how long the trace file is now, the offset of every event numbered k·indexEvery among
 * those it wrote (TraceOut) and how many unread entries were written; the answer to `end` also the parser's
 * summary and in how many blocks out of time order the log's lines fall (a StampScanner reads the text beside
 * the parser). When there are more than one, `{merge: true}` writes both files anew from the log read block
 * by block in the order that merges the blocks by time (blockOrder, LineFile), the events of the first
 * MERGE_LINES lines, `{more: true}` the next ones, until the answer that carries the summary. The lines no
 * family reads make no event: each such entry goes to raw.ndjson as the parser hands it on, with the byte
 * offsets of its first line (RawOut, LineStarts: raw-file.ts). `{finish: true}` fsyncs both files and lets
 * the descriptors go. A failure answers `{error}` (with the system's code and call when the disk refused) and
 * the thread is done with that log.
 *
 * Memory: one block of the log, the decoder's text in DECODE_BYTES strings, the writers' buffers, a line
 * start and a stamp a line, and what the parser keeps (its pods, its reorder window).
 */
import { readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { blockOrder, KubeletLogParser, StampScanner } from '@syncscope/core/kubelet-log';
import { BlockDecoder, LineFile } from '../log-blocks.ts';
import type { ParseAnswer, ParseRequest } from './parse-thread.ts';
import { LineStarts, RawOut } from './raw-file.ts';
import { TraceOut } from './trace-out.ts';

/** how many lines of a merge one answer covers */
const MERGE_LINES = 16_384;
/** how much of the log is read at a time */
const BLOCK_BYTES = 1 << 20;

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread');
const { indexEvery } = workerData as { indexEvery: number };

const block = Buffer.allocUnsafe(BLOCK_BYTES);
const trace = new TraceOut(indexEvery);
let logFd = -1;
/** how many bytes of the log were read and parsed */
let readAt = 0;
let decoder = new BlockDecoder();
const lineStarts = new LineStarts();
const raw = new RawOut(lineStarts, () => readAt);
const newParser = (reversed?: boolean) =>
  new KubeletLogParser({
    ...(reversed === undefined ? {} : { reversed }),
    rawEntries: raw,
    onEvent: (ev) => trace.add(ev),
  });
let parser = newParser();
let scan: StampScanner | undefined;
/** the lines' order once the log is known to be in blocks out of time order, and the merge under way */
let order: { order: Uint32Array; blocks: number } | undefined;
let merge: { lines: LineFile; next: number } | undefined;
let failed: string | undefined;

/** Parses the log's bytes from readAt up to `upTo`, one block at a time. */
function readTo(upTo: number): void {
  const p = parser;
  const s = scan;
  const sink = (text: string) => {
    p.feed(text);
    s?.feed(text);
  };
  while (readAt < upTo) {
    const got = readSync(logFd, block, 0, Math.min(BLOCK_BYTES, upTo - readAt), readAt);
    if (got === 0) throw new Error(`the log ends at ${readAt} bytes, before ${upTo}`);
    const bytes = block.subarray(0, got);
    lineStarts.scan(bytes, readAt);
    readAt += got;
    decoder.feed(bytes, sink);
  }
}

/** the next MERGE_LINES lines of the merge; the last answer carries the summary */
function mergeStep(): void {
  const m = merge as NonNullable<typeof merge>;
  const o = order as NonNullable<typeof order>;
  const to = Math.min(o.order.length, m.next + MERGE_LINES);
  for (; m.next < to; m.next++) {
    const i = o.order[m.next] as number;
    parser.feedLine(m.lines.line(i), i + 1);
  }
  if (m.next < o.order.length) {
    answer();
    return;
  }
  merge = undefined;
  const summary = parser.end();
  summary.blocks = o.blocks;
  order = undefined;
  answer({ summary });
}

function answer(extra: Partial<ParseAnswer> = {}): void {
  port?.postMessage({ ...trace.take(), raws: raw.count, ...extra } satisfies ParseAnswer);
}

/** A fresh parse; the descriptors of the last log are let go (the server's thread closes them). */
function reset(fds?: { log: number; trace: number; raw: number }): void {
  failed = undefined;
  decoder = new BlockDecoder();
  lineStarts.clear();
  parser = newParser();
  scan = fds ? new StampScanner(new Date().getUTCFullYear()) : undefined;
  order = undefined;
  merge = undefined;
  readAt = 0;
  logFd = fds?.log ?? -1;
  if (fds) {
    trace.open(fds.trace);
    raw.open(fds.raw);
  } else {
    trace.file.detach();
    raw.file.detach();
  }
}

/** in how many blocks out of time order the log's lines fall; keeps their order when more than one */
function stampBlocks(s: StampScanner, rest: string): number {
  s.feed(rest);
  s.end();
  const b = blockOrder(s.all);
  if (b.order) order = { order: b.order, blocks: b.blocks };
  return b.blocks;
}

function handle(m: ParseRequest): void {
  if ('start' in m) reset(m.start);
  else if ('feed' in m) {
    readTo(m.feed);
    answer();
  } else if ('end' in m) {
    const rest = decoder.end();
    parser.feed(rest);
    const summary = parser.end();
    const blocks = scan ? stampBlocks(scan, rest) : 1;
    scan = undefined;
    answer({ summary, blocks });
  } else if ('merge' in m) {
    // the log again, in the order that merges its blocks: a fresh parser, a fresh trace
    trace.restart();
    raw.restart();
    parser = newParser(false);
    merge = { lines: LineFile.open(logFd, readAt), next: 0 };
    mergeStep();
  } else if ('more' in m) mergeStep();
  else {
    trace.file.sync();
    raw.file.sync();
    const done = { ...trace.take(), raws: raw.count };
    // the import is done: nothing of it is held while the thread waits for the next
    reset();
    port?.postMessage(done satisfies ParseAnswer);
  }
}

port.on('message', (m: ParseRequest) => {
  if (failed !== undefined && !('start' in m)) {
    port?.postMessage({ traceBytes: 0, offsets: [], error: failed } satisfies ParseAnswer);
    return;
  }
  try {
    handle(m);
  } catch (e) {
    // after a throw the parser's state is unknown: every later answer is this error too
    const err = e as NodeJS.ErrnoException;
    failed = err instanceof Error ? err.message : String(e);
    const system = typeof err?.syscall === 'string' ? { code: err.code ?? 'EIO', syscall: err.syscall } : {};
    port?.postMessage({ traceBytes: 0, offsets: [], error: failed, ...system } satisfies ParseAnswer);
  }
});
