/**
 * The import-log command's output on a second thread. The parser stays on the main thread (it is stateful and
 * reads the input in order); encoding its events as NDJSON bytes runs in a worker (import-log-encoder.ts) on the
 * machine's other core. Events cross in batches of bytes and numbers in memory both threads share, so nothing
 * is cloned or moved: each string of a batch (a log.raw event's text, level, source, node and pod, any other
 * event's JSON text as JSON.stringify makes it) is written as UTF-8 into the batch's bytes as it is added, and
 * sending a batch posts only its slot's number and sizes; the slot is free again once the worker says the batch
 * is encoded. (Writing each string where it goes costs less than joining them and writing the join: a join of
 * many slices of the input is a rope that has to be walked and copied first. Moving buffers between the threads
 * instead of sharing them cost more: 0.50-0.64 s of system time on a 105 MB log against 0.31-0.36 s.) The worker
 * escapes a log.raw text straight from its bytes and fills 1 MiB output chunks, also shared, which are written to
 * the sink here in the order the events were pushed, so the bytes are those NdjsonOut writes on one thread; a
 * chunk goes back to the worker once the sink has written it.
 *
 * Contract (the same as NdjsonOut's): `push` is called synchronously by the parser for every event and never
 * blocks; the reading loop calls `drain` between input blocks, which waits while more than MAX_IN_FLIGHT
 * batches are with the worker or the sink has asked to wait, so memory holds a few batches whatever the input
 * size; `end` sends the rest, waits for the last chunk and stops the worker.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TraceEvent } from '@syncscope/core/trace';
import { rawLineBytes } from './import-log-out.ts';

/** stdout, or any stream with its write (calling back once a chunk is written) and drain contract */
export interface Sink {
  write(b: Uint8Array, written: () => void): boolean;
  once(event: 'drain', f: () => void): unknown;
}

/** one event's numbers in a batch: what it is, and for log.raw the indices of its strings and its numbers */
export const FIELDS = 9;
export const F = {
  /** 0: a JSON line (string `text`, without its newline); 1: a log.raw event */
  kind: 0,
  text: 1,
  level: 2,
  source: 3,
  node: 4,
  /** -1 when absent */
  pod: 5,
  podUID: 6,
  seq: 7,
  time: 8,
} as const;
/**
 * A batch slot's arrays, all on shared memory: `bytes` holds the batch's strings end to end as UTF-8, `lens`
 * their lengths in bytes; `nums` holds FIELDS numbers per event (string fields as indices into the batch's
 * strings) and `lines` each log.raw event's origin line. A string in it is well-formed (no lone surrogate): a
 * log.raw event with one crosses as its finished JSON line, kind 0.
 */
export interface SlotArrays {
  bytes: Uint8Array;
  lens: Int32Array;
  nums: Float64Array;
  lines: Int32Array;
}
/** main → worker: a batch in slot `slot` (its arrays given when they are new to the worker), or null: the end */
export type Send =
  | { batch: { slot: number; used: number; strings: number; count: number; arrays?: SlotArrays } }
  | { free: number }
  | null;
/**
 * worker → main: output chunks in order, each [chunk, length] (a chunk new to this thread comes with its memory in
 * `chunks`) or a copy of bytes outside the chunks; `done` batches encoded so far, their slots free; `end` once
 * the last output is in.
 */
export type Reply = {
  out: ([number, number] | Uint8Array)[];
  chunks?: [number, SharedArrayBuffer][];
  freed: number[];
  done: number;
  end?: boolean;
};

/** shared memory of n bytes, as a Buffer */
export function sharedBytes(n: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(n));
}

/**
 * The encoder thread. Bundled (scripts/bundled.mjs runs the command as plain JavaScript), the encoder's bundle
 * lies beside this one. From TypeScript sources under tsx (tests), whose loader hooks a new thread does not
 * inherit, the thread registers them itself before it loads the encoder.
 */
function startEncoder(): Worker {
  const resourceLimits = { maxYoungGenerationSizeMb: 8 };
  if (!import.meta.url.endsWith('.ts'))
    return new Worker(new URL('./import-log-encoder.mjs', import.meta.url), { resourceLimits });
  const api = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL('./import-log-encoder.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(api)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    resourceLimits,
  });
}

const MAX_EVENTS = 4096;
/** a batch's bytes: it is sent once an event might not fit (UTF-8 takes at most 3 bytes a UTF-16 unit; an event
 * longer than that goes alone in a buffer of its own size) */
const BATCH_BYTES = 3 << 19;
const MAX_IN_FLIGHT = 4;
/** strings an event adds at most: text, level, source, node, pod, podUID */
const MAX_STRINGS = 6;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

/** Buffer's own UTF-8 writer, the one write() calls after reading its arguments */
type Direct = Buffer & { utf8Write(s: string, at: number, max: number): number };
const utf8Write: (b: Buffer, s: string, at: number) => number =
  typeof (Buffer.prototype as Partial<Direct>).utf8Write === 'function'
    ? (b, s, at) => (b as Direct).utf8Write(s, at, b.length - at)
    : (b, s, at) => b.write(s, at);

/** no lone surrogate in s (String.prototype.isWellFormed, ES2024: Node 20 has it, the project's lib not yet) */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** a batch being filled: its slot, the slot's arrays, and what it holds so far */
interface Batch extends SlotArrays {
  slot: number;
  /** the worker has not seen these arrays yet */
  fresh: boolean;
  used: number;
  strings: number;
  count: number;
}

export class EncoderPipe {
  private readonly worker: Worker;
  /** slots the worker is done with (at most MAX_IN_FLIGHT + 1 are ever made) */
  private readonly free: Batch[] = [];
  /** every slot, by number */
  private readonly bySlot: Batch[] = [];
  private batch = this.slot();
  /** the batch's bytes as a Buffer, to write strings into */
  private out = this.batch.bytes as Buffer;
  /** the worker's output chunks, by number */
  private readonly chunks: Buffer[] = [];
  private sent = 0;
  private done = 0;
  private blocked = false;
  private failed: Error | undefined;
  private wake: (() => void) | undefined;
  private ended = false;
  /** consecutive events mostly repeat their level, source and node: their index in the batch is reused */
  private lastLevel = '';
  private lastLevelAt = -1;
  private lastSource = '';
  private lastSourceAt = -1;
  private lastNode = '';
  private lastNodeAt = -1;

  constructor(private readonly sink: Sink) {
    this.worker = startEncoder();
    this.worker.on('message', (r: Reply) => {
      for (const [n, mem] of r.chunks ?? []) this.chunks[n] = Buffer.from(mem);
      for (const o of r.out) {
        if (o instanceof Uint8Array) {
          if (!this.sink.write(o, () => undefined)) this.block();
          continue;
        }
        const [n, len] = o;
        const chunk = (this.chunks[n] as Buffer).subarray(0, len);
        if (!this.sink.write(chunk, () => this.recycle(n))) this.block();
      }
      for (const n of r.freed) this.free.push(this.bySlot[n] as Batch);
      this.done = r.done;
      if (r.end) this.ended = true;
      this.poke();
    });
    this.worker.on('error', (e) => {
      this.failed = e;
      this.poke();
    });
  }

  /** a written output chunk goes back to the worker, so the output reuses a few chunks */
  private recycle(n: number): void {
    if (!this.ended) this.post({ free: n });
  }

  private post(m: Send): void {
    this.worker.postMessage(m);
  }

  /** a free slot, or a new one */
  private slot(): Batch {
    const b = this.free.pop();
    if (b) {
      b.used = b.strings = b.count = 0;
      return b;
    }
    const fresh: Batch = {
      slot: this.bySlot.length,
      fresh: true,
      bytes: sharedBytes(BATCH_BYTES),
      lens: new Int32Array(new SharedArrayBuffer(MAX_EVENTS * MAX_STRINGS * 4)),
      nums: new Float64Array(new SharedArrayBuffer(MAX_EVENTS * FIELDS * 8)),
      lines: new Int32Array(new SharedArrayBuffer(MAX_EVENTS * 4)),
      used: 0,
      strings: 0,
      count: 0,
    };
    this.bySlot[fresh.slot] = fresh;
    return fresh;
  }

  /** adds a string to the batch (room() made room for it); its index */
  private str(s: string): number {
    const b = this.batch;
    const n = utf8Write(this.out, s, b.used);
    b.used += n;
    b.lens[b.strings] = n;
    return b.strings++;
  }

  /**
   * Makes room for an event of `units` UTF-16 units: sends the batch first when they might not fit, and gives
   * an event longer than a batch's bytes a slot with bytes of its size.
   */
  private room(units: number): void {
    const need = units * 3;
    if (this.batch.used + need <= this.batch.bytes.length) return;
    this.send();
    if (need > this.batch.bytes.length) {
      this.batch.bytes = sharedBytes(need);
      this.batch.fresh = true;
      this.out = this.batch.bytes as Buffer;
    }
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  push = (ev: TraceEvent): void => {
    if (ev.type === 'log.raw') this.raw(ev as Raw);
    else this.json(JSON.stringify(ev));
    if (this.batch.count === MAX_EVENTS) this.send();
  };

  /** an event as its JSON line (JSON.stringify's text is always well-formed) */
  private json(s: string): void {
    this.room(s.length);
    const at = this.batch.count * FIELDS;
    this.batch.nums[at + F.kind] = 0;
    this.batch.nums[at + F.text] = this.str(s);
    this.batch.count++;
  }

  private raw(r: Raw): void {
    const level = r.level ?? '';
    const source = r.source ?? '';
    const node = r.node ?? '';
    const pod = r.pod;
    const podUID = r.podUID;
    if (
      // the last level, source and node were checked when they were added
      !(
        wellFormed(r.text) &&
        (level === this.lastLevel || wellFormed(level)) &&
        (source === this.lastSource || wellFormed(source)) &&
        (node === this.lastNode || wellFormed(node))
      ) ||
      (pod !== undefined && !wellFormed(pod)) ||
      (podUID !== undefined && !wellFormed(podUID))
    ) {
      // UTF-8 cannot carry a lone surrogate, which JSON writes as \udxxx: the line is made here
      this.json(Buffer.from(rawLineBytes(r)).toString('utf8'));
      return;
    }
    this.room(
      r.text.length + level.length + source.length + node.length + (pod?.length ?? 0) + (podUID?.length ?? 0),
    );
    const b = this.batch;
    const at = b.count * FIELDS;
    const nums = b.nums;
    nums[at + F.kind] = 1;
    nums[at + F.text] = this.str(r.text);
    if (level !== this.lastLevel || this.lastLevelAt < 0) {
      this.lastLevel = level;
      this.lastLevelAt = this.str(level);
    }
    nums[at + F.level] = this.lastLevelAt;
    if (source !== this.lastSource || this.lastSourceAt < 0) {
      this.lastSource = source;
      this.lastSourceAt = this.str(source);
    }
    nums[at + F.source] = this.lastSourceAt;
    if (node !== this.lastNode || this.lastNodeAt < 0) {
      this.lastNode = node;
      this.lastNodeAt = this.str(node);
    }
    nums[at + F.node] = this.lastNodeAt;
    nums[at + F.pod] = pod !== undefined ? this.str(pod) : -1;
    nums[at + F.podUID] = podUID !== undefined ? this.str(podUID) : -1;
    nums[at + F.seq] = r.seq;
    nums[at + F.time] = r.time;
    b.lines[b.count] = r.origin?.line ?? 0;
    b.count++;
  }

  private send(): void {
    const b = this.batch;
    if (b.count === 0) return;
    const { slot, used, strings, count } = b;
    if (b.fresh) {
      const arrays: SlotArrays = { bytes: b.bytes, lens: b.lens, nums: b.nums, lines: b.lines };
      this.post({ batch: { slot, used, strings, count, arrays } });
      b.fresh = false;
    } else this.post({ batch: { slot, used, strings, count } });
    this.sent++;
    this.batch = this.slot();
    this.out = this.batch.bytes as Buffer;
    this.lastLevelAt = this.lastSourceAt = this.lastNodeAt = -1;
  }

  /** resolves once `ok()` holds (or the worker failed, which throws) */
  private async until(ok: () => boolean): Promise<void> {
    while (!ok()) {
      if (this.failed) throw this.failed;
      await new Promise<void>((r) => {
        this.wake = r;
      });
    }
    if (this.failed) throw this.failed;
  }

  /** the sink asked to wait: listened for at once, as its drain may come before anyone awaits it */
  private block(): void {
    if (this.blocked) return;
    this.blocked = true;
    this.sink.once('drain', () => {
      this.blocked = false;
      this.poke();
    });
  }

  async drain(): Promise<void> {
    await this.until(() => this.sent - this.done <= MAX_IN_FLIGHT && !this.blocked);
  }

  async end(): Promise<void> {
    this.send();
    this.post(null);
    await this.until(() => this.ended && !this.blocked);
    await this.worker.terminate();
  }
}
