/**
 * The worker side of EncoderPipe (import-log-pipe.ts): batches of events in, NDJSON bytes out, both on memory
 * shared with the main thread. Each batch is encoded by one NdjsonOut, a log.raw text escaped from its UTF-8
 * bytes, so the bytes are exactly those the single-threaded writer makes. After every batch the filled output
 * chunks (by number, with their memory the first time) and the batch's slot go back to the main thread; a chunk
 * is filled again once the main thread says it is written. A null message ends the input: the last partial
 * chunk goes back with `end`. Nothing here blocks but the encoding.
 */
import { parentPort } from 'node:worker_threads';
import { CHUNK, emptyRawFields, NdjsonOut } from './import-log-out.ts';
import { F, FIELDS, type Reply, type Send, type SlotArrays, sharedBytes } from './import-log-pipe.ts';

const port = parentPort;
if (!port) throw new Error('import-log-encoder runs as a worker thread');

/** output chunks, by number; the number of a chunk's memory */
const chunks: Buffer[] = [];
const numberOf = new Map<ArrayBufferLike, number>();
/** chunks the main thread has written */
const spare: number[] = [];
let reply: Reply = { out: [], freed: [], done: 0 };

const out = new NdjsonOut(
  {
    write(b: Uint8Array): boolean {
      const n = numberOf.get(b.buffer);
      // a chunk's filled part starts at 0; anything else (an event too long for a chunk) is copied
      if (n !== undefined && b.byteOffset === 0) reply.out.push([n, b.length]);
      else reply.out.push(new Uint8Array(b));
      return true;
    },
    once: () => undefined,
  },
  () => {
    const n = spare.pop();
    if (n !== undefined) return chunks[n] as Buffer;
    const c = sharedBytes(CHUNK);
    const k = chunks.length;
    chunks.push(c);
    numberOf.set(c.buffer, k);
    reply.chunks ??= [];
    reply.chunks.push([k, c.buffer as SharedArrayBuffer]);
    return c;
  },
);
let done = 0;
/** the fields of the log.raw event being written (one object, reused) */
const f = emptyRawFields();
/** each slot's arrays, as the main thread last gave them */
const slots: SlotArrays[] = [];

function send(end: boolean): void {
  reply.done = done;
  if (end) reply.end = true;
  port?.postMessage(reply);
  reply = { out: [], freed: [], done };
}

port.on('message', (m: Send) => {
  if (m === null) {
    void out.end().then(() => send(true));
    return;
  }
  if ('free' in m) {
    spare.push(m.free);
    return;
  }
  const b = m.batch;
  if (b.arrays) slots[b.slot] = b.arrays;
  const { bytes, lens, nums, lines } = slots[b.slot] as SlotArrays;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  // where each string starts; the short ones (level, source, node, pod) are read as strings when first used
  const starts = new Int32Array(b.strings + 1);
  for (let i = 0; i < b.strings; i++) starts[i + 1] = (starts[i] as number) + (lens[i] as number);
  const strs: (string | undefined)[] = new Array(b.strings);
  const str = (i: number): string => {
    let v = strs[i];
    if (v === undefined) {
      v = buf.toString('utf8', starts[i], starts[i + 1]);
      strs[i] = v;
    }
    return v;
  };
  for (let i = 0; i < b.count; i++) {
    const at = i * FIELDS;
    const t = nums[at + F.text] as number;
    if (nums[at + F.kind] === 0) {
      out.pushJsonBytes(bytes, starts[t] as number, starts[t + 1] as number);
      continue;
    }
    f.level = str(nums[at + F.level] as number);
    f.source = str(nums[at + F.source] as number);
    f.node = str(nums[at + F.node] as number);
    const pod = nums[at + F.pod] as number;
    f.pod = pod >= 0 ? str(pod) : undefined;
    const uid = nums[at + F.podUID] as number;
    f.podUID = uid >= 0 ? str(uid) : undefined;
    f.seq = nums[at + F.seq] as number;
    f.time = nums[at + F.time] as number;
    f.line = lines[i] as number;
    out.pushRawBytes(bytes, starts[t] as number, starts[t + 1] as number, f);
  }
  done++;
  reply.freed.push(b.slot);
  send(false);
});
