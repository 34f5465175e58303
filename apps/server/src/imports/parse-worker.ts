/**
 * The worker side of ParseThread (parse-thread.ts): an import's log parsed off the server's event loop.
 * In: `{start: true}` (a new log: a fresh parser), then `{chunk}` (UTF-8 bytes of the log, in order), then
 * `{end: true}`; the thread then waits for the next `start` (ParsePool keeps it for the next import). Out, one answer per message: the
 * NDJSON of the events the chunk released (`bytes`, one event a line) and, for the index, the byte offset
 * in the whole trace of every event whose number (from 0) is a multiple of `indexEvery`; the answer to
 * `end` also carries the parser's summary and in how many blocks out of time order the log's lines fall (a
 * StampScanner reads each chunk beside the parser). When there are more than one, `{merge: path}` (the log as
 * kept on disk) reads it again from the start, block by block in the order that merges the blocks by time
 * (blockOrder, LineFile), and answers the events of the first MERGE_LINES lines; `{more: true}` the next ones,
 * until the answer that carries the summary. The lines no family reads make no event: they are RawEntries
 * (one per parse, a merge's its own), which `{raw: {log, out}}` after the summary writes to `out` with their
 * byte offsets in `log`, the log as kept (raw-file.ts). A failure answers `{error}` and the thread is done.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { blockOrder, KubeletLogParser, RawEntries, StampScanner } from '@syncscope/core/kubelet-log';
import { LineFile } from '../log-blocks.ts';
import type { ParseAnswer, ParseRequest } from './parse-thread.ts';
import { writeRawFile } from './raw-file.ts';

/** how many lines of a merge one answer covers */
const MERGE_LINES = 16_384;

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread');
const { indexEvery } = workerData as { indexEvery: number };

const encoder = new TextEncoder();
let decoder = new TextDecoder('utf-8');
let out: string[] = [];
let offsets: number[] = [];
let events = 0;
let traceBytes = 0;
let rawEntries = new RawEntries();
const newParser = (reversed?: boolean) =>
  new KubeletLogParser({
    ...(reversed === undefined ? {} : { reversed }),
    rawEntries,
    onEvent: (ev) => {
      if (events % indexEvery === 0) offsets.push(traceBytes);
      events++;
      const line = `${JSON.stringify(ev)}\n`;
      traceBytes += Buffer.byteLength(line);
      out.push(line);
    },
  });
let parser = newParser();
let scan: StampScanner | undefined;
/** the lines' order once the log is known to be in blocks out of time order, and the merge under way */
let order: { order: Uint32Array; blocks: number } | undefined;
let merge: { fd: number; lines: LineFile; next: number } | undefined;

function endMerge(): void {
  if (merge) closeSync(merge.fd);
  merge = undefined;
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
  endMerge();
  const summary = parser.end();
  summary.blocks = o.blocks;
  order = undefined;
  answer({ summary });
}

function answer(extra: Partial<ParseAnswer> = {}): void {
  const bytes = encoder.encode(out.join(''));
  const msg: ParseAnswer = { bytes, offsets, ...extra };
  out = [];
  offsets = [];
  port?.postMessage(msg, [bytes.buffer as ArrayBuffer]);
}

let failed: string | undefined;

function reset(): void {
  out = [];
  offsets = [];
  events = 0;
  traceBytes = 0;
  rawEntries = new RawEntries();
}

/** in how many blocks out of time order the log's lines fall; keeps their order when more than one */
function stampBlocks(s: StampScanner, rest: string): number {
  s.feed(rest);
  s.end();
  const b = blockOrder(s.all);
  if (b.order) order = { order: b.order, blocks: b.blocks };
  return b.blocks;
}

port.on('message', (m: ParseRequest) => {
  if (failed !== undefined && !('start' in m)) {
    port?.postMessage({ bytes: new Uint8Array(0), offsets: [], error: failed });
    return;
  }
  try {
    if ('start' in m) {
      failed = undefined;
      decoder = new TextDecoder('utf-8');
      reset();
      parser = newParser();
      scan = new StampScanner(new Date().getUTCFullYear());
      order = undefined;
      endMerge();
      return;
    }
    if ('end' in m) {
      const rest = decoder.decode();
      parser.feed(rest);
      const summary = parser.end();
      const blocks = scan ? stampBlocks(scan, rest) : 1;
      scan = undefined;
      answer({ summary, blocks });
      return;
    }
    if ('merge' in m) {
      // the log again, in the order that merges its blocks: a fresh parser, a fresh trace
      reset();
      parser = newParser(false);
      const fd = openSync(m.merge, 'r');
      merge = { fd, lines: LineFile.open(fd, fstatSync(fd).size), next: 0 };
      mergeStep();
      return;
    }
    if ('more' in m) {
      mergeStep();
      return;
    }
    if ('raw' in m) {
      const raws = writeRawFile(rawEntries, m.raw.log, m.raw.out);
      // the import is done: nothing of it is held while the thread waits for the next
      reset();
      parser = newParser();
      answer({ raws });
      return;
    }
    const text = decoder.decode(m.chunk, { stream: true });
    parser.feed(text);
    scan?.feed(text);
    answer();
  } catch (e) {
    // after a throw the parser's state is unknown: every later answer is this error too
    failed = e instanceof Error ? e.message : String(e);
    endMerge();
    port?.postMessage({
      bytes: new Uint8Array(0),
      offsets: [],
      error: e instanceof Error ? e.message : String(e),
    });
  }
});
