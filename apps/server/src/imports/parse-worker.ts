/**
 * The worker side of ParseThread (parse-thread.ts): an import's log parsed off the server's event loop.
 * In: `{start: true}` (a new log: a fresh parser), then `{chunk}` (UTF-8 bytes of the log, in order), then
 * `{end: true}`; the thread then waits for the next `start` (ParsePool keeps it for the next import). Out, one answer per message: the
 * NDJSON of the events the chunk released (`bytes`, one event a line) and, for the index, the byte offset
 * in the whole trace of every event whose number (from 0) is a multiple of `indexEvery`; the answer to
 * `end` also carries the parser's summary. A failure answers `{error}` and the thread is done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { KubeletLogParser } from '@syncscope/core/kubelet-log';
import type { ParseAnswer, ParseRequest } from './parse-thread.ts';

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread');
const { indexEvery } = workerData as { indexEvery: number };

const encoder = new TextEncoder();
let decoder = new TextDecoder('utf-8');
let out: string[] = [];
let offsets: number[] = [];
let events = 0;
let traceBytes = 0;
const newParser = () =>
  new KubeletLogParser({
    onEvent: (ev) => {
      if (events % indexEvery === 0) offsets.push(traceBytes);
      events++;
      const line = `${JSON.stringify(ev)}\n`;
      traceBytes += Buffer.byteLength(line);
      out.push(line);
    },
  });
let parser = newParser();

function answer(extra: Partial<ParseAnswer> = {}): void {
  const bytes = encoder.encode(out.join(''));
  const msg: ParseAnswer = { bytes, offsets, ...extra };
  out = [];
  offsets = [];
  port?.postMessage(msg, [bytes.buffer as ArrayBuffer]);
}

let failed: string | undefined;

port.on('message', (m: ParseRequest) => {
  if (failed !== undefined && !('start' in m)) {
    port?.postMessage({ bytes: new Uint8Array(0), offsets: [], error: failed });
    return;
  }
  try {
    if ('start' in m) {
      failed = undefined;
      decoder = new TextDecoder('utf-8');
      out = [];
      offsets = [];
      events = 0;
      traceBytes = 0;
      parser = newParser();
      return;
    }
    if ('end' in m) {
      parser.feed(decoder.decode());
      const summary = parser.end();
      answer({ summary });
      return;
    }
    parser.feed(decoder.decode(m.chunk, { stream: true }));
    answer();
  } catch (e) {
    // after a throw the parser's state is unknown: every later answer is this error too
    failed = e instanceof Error ? e.message : String(e);
    port?.postMessage({
      bytes: new Uint8Array(0),
      offsets: [],
      error: e instanceof Error ? e.message : String(e),
    });
  }
});
