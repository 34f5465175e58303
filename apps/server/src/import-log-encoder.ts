/**
 * The worker side of EncoderPipe (import-log-pipe.ts): batches of events in, NDJSON bytes out. Each batch is
 * encoded by one NdjsonOut, a log.raw text escaped from its UTF-8 bytes, so the bytes are exactly those the
 * single-threaded writer makes; the filled output
 * buffers go back to the main thread (transferred) after every batch, with the number of batches done. A null
 * message ends the input: the last partial buffer goes back with `end`. Nothing here blocks but the encoding.
 */
import { parentPort } from 'node:worker_threads';
import { CHUNK, emptyRawFields, NdjsonOut } from './import-log-out.ts';
import { type Batch, F, FIELDS, type Reply, type Spent } from './import-log-pipe.ts';

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
/** the fields of the log.raw event being written (one object, reused) */
const f = emptyRawFields();

/**
 * Where each string starts in the bytes when some characters took more than a byte: `lens` counts UTF-16 units,
 * and a well-formed string's UTF-8 has a lead byte per character (4 bytes for a surrogate pair, 2 units).
 */
function byteStarts(bytes: Uint8Array, lens: Int32Array, strings: number, starts: Int32Array): void {
  let p = 0;
  for (let i = 0; i < strings; i++) {
    for (let u = lens[i] as number; u > 0; ) {
      const c = bytes[p] as number;
      if (c < 0x80) {
        p++;
        u--;
      } else if (c < 0xe0) {
        p += 2;
        u--;
      } else if (c < 0xf0) {
        p += 3;
        u--;
      } else {
        p += 4;
        u -= 2;
      }
    }
    starts[i + 1] = p;
  }
}

function reply(end: boolean, spent?: Spent): void {
  const r: Reply = { bufs, done, ...(end ? { end } : {}), ...(spent ? { spent } : {}) };
  const moved = bufs.map((b) => b.buffer as ArrayBuffer);
  if (spent) moved.push(spent.bytes, spent.lens, spent.nums, spent.lines);
  port?.postMessage(r, moved);
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
  const { bytes, lens, nums, lines } = b;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  // where each string starts; the short ones (level, source, node, pod) are read as strings when first used
  const starts = new Int32Array(b.strings + 1);
  if (b.used === b.units)
    for (let i = 0; i < b.strings; i++) starts[i + 1] = (starts[i] as number) + (lens[i] as number);
  else byteStarts(bytes, lens, b.strings, starts);
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
  const spent: Spent = {
    bytes: bytes.buffer as ArrayBuffer,
    lens: lens.buffer as ArrayBuffer,
    nums: nums.buffer as ArrayBuffer,
    lines: lines.buffer as ArrayBuffer,
  };
  reply(false, spent);
});
