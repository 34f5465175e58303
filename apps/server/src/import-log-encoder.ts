/**
 * The worker side of EncoderPipe (import-log-pipe.ts): batches of events in, NDJSON bytes out. Each batch is
 * encoded by one NdjsonOut, so the bytes are exactly those the single-threaded writer makes; the filled output
 * buffers go back to the main thread (transferred) after every batch, with the number of batches done. A null
 * message ends the input: the last partial buffer goes back with `end`. Nothing here blocks but the encoding.
 */
import { parentPort } from 'node:worker_threads';
import type { TraceEvent } from '@syncscope/core/trace';
import { CHUNK, NdjsonOut } from './import-log-out.ts';
import { type Batch, F, FIELDS, type Reply } from './import-log-pipe.ts';

const port = parentPort;
if (!port) throw new Error('import-log-encoder runs as a worker thread');

let bufs: Uint8Array[] = [];
/** output buffers the main thread has written and sent back */
const spare: ArrayBuffer[] = [];
const out = new NdjsonOut(
  {
    write(b: Uint8Array): boolean {
      // the writer's own buffers (1 MiB and more) are handed over; anything smaller may share Node's buffer pool
      bufs.push(b.buffer.byteLength >= 1 << 20 ? b : new Uint8Array(b));
      return true;
    },
    once: () => undefined,
  },
  () => {
    const b = spare.pop();
    return b ? Buffer.from(b) : Buffer.allocUnsafe(CHUNK);
  },
);
let done = 0;

function reply(end: boolean): void {
  const r: Reply = { bufs, done, ...(end ? { end } : {}) };
  port?.postMessage(
    r,
    bufs.map((b) => b.buffer as ArrayBuffer),
  );
  bufs = [];
}

port.on('message', (b: Batch | ArrayBuffer | null) => {
  if (b instanceof ArrayBuffer) {
    spare.push(b);
    return;
  }
  if (b === null) {
    void out.end().then(() => reply(true));
    return;
  }
  const { text: all, lens, nums, lines } = b;
  const strs: string[] = new Array(b.strings);
  for (let i = 0, at = 0; i < b.strings; i++) {
    const end = at + (lens[i] as number);
    strs[i] = all.slice(at, end);
    at = end;
  }
  for (let i = 0; i < b.count; i++) {
    const at = i * FIELDS;
    const text = strs[nums[at + F.text] as number] as string;
    if (nums[at + F.kind] === 0) {
      out.pushJson(text);
      continue;
    }
    const ev: Record<string, unknown> = {
      type: 'log.raw',
      text,
      level: strs[nums[at + F.level] as number],
      source: strs[nums[at + F.source] as number],
      seq: nums[at + F.seq],
      time: nums[at + F.time],
      node: strs[nums[at + F.node] as number],
      origin: { line: lines[i] },
    };
    const pod = nums[at + F.pod] as number;
    if (pod >= 0) ev.pod = strs[pod];
    const uid = nums[at + F.podUID] as number;
    if (uid >= 0) ev.podUID = strs[uid];
    out.push(ev as unknown as TraceEvent);
  }
  done++;
  reply(false);
});
