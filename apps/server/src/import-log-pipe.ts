/**
 * The import-log command's output on a second thread. The parser stays on the main thread (it is stateful and
 * reads the input in order); encoding its events as NDJSON bytes, about a third of the work, runs in a worker
 * (import-log-encoder.ts) on the machine's other core. Events cross in batches of plain values: a log.raw event
 * as its text and a few numbers, any other event as its JSON text (made here, as JSON.stringify would). The
 * worker hands back filled 1 MiB output buffers (transferred, not copied), which are written to the sink here
 * in the order the events were pushed, so the bytes are those NdjsonOut writes on one thread.
 *
 * Contract (the same as NdjsonOut's): `push` is called synchronously by the parser for every event and never
 * blocks; the reading loop calls `drain` between input blocks, which waits while more than MAX_IN_FLIGHT
 * batches are with the worker or the sink has asked to wait, so memory holds a few batches whatever the input
 * size; `end` sends the rest, waits for the last buffer and stops the worker.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { TraceEvent } from '@syncscope/core/trace';
import { CHUNK } from './import-log-out.ts';

/** stdout, or any stream with its write (calling back once a chunk is written) and drain contract */
export interface Sink {
  write(b: Uint8Array, written: () => void): boolean;
  once(event: 'drain', f: () => void): unknown;
}

/** one event's numbers in a batch: what it is, and for log.raw the indices of its strings and its numbers */
export const FIELDS = 9;
export const F = {
  /** 0: a JSON line (string `text`); 1: a log.raw event */
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
 * A batch of events. Its strings travel as one: `text` is all of them end to end, `lens` their lengths (a
 * single string is copied across threads far faster than thousands); `nums` holds FIELDS numbers per event
 * (string fields as indices into the batch's strings) and `lines` each log.raw event's origin line.
 */
export interface Batch {
  text: string;
  lens: Int32Array;
  strings: number;
  nums: Float64Array;
  lines: Int32Array;
  count: number;
}
/** what the worker sends back: output buffers, and `done` once a batch is encoded (or `end` once all are) */
export type Reply = { bufs: Uint8Array[]; done: number; end?: boolean };

/**
 * The encoder thread. The command runs from TypeScript sources under tsx, whose loader hooks a new thread does
 * not inherit: the thread registers them itself before it loads the encoder.
 */
function startEncoder(): Worker {
  const api = createRequire(import.meta.url).resolve('tsx/cjs/api');
  const entry = fileURLToPath(new URL('./import-log-encoder.ts', import.meta.url));
  return new Worker(`require(${JSON.stringify(api)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
}

const MAX_EVENTS = 4096;
/** a batch is also sent once its strings hold this many characters */
const MAX_CHARS = 1 << 19;
const MAX_IN_FLIGHT = 4;
/** strings an event adds at most: text, level, source, node, pod, podUID */
const MAX_STRINGS = 6;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

export class EncoderPipe {
  private readonly worker: Worker;
  private batch = this.fresh();
  private chars = 0;
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
      for (const b of r.bufs) if (!this.sink.write(b, () => this.recycle(b))) this.block();
      this.done = r.done;
      if (r.end) this.ended = true;
      this.poke();
    });
    this.worker.on('error', (e) => {
      this.failed = e;
      this.poke();
    });
  }

  /** a written output buffer of the encoder's own size goes back to it, so the output reuses a few buffers */
  private recycle(b: Uint8Array): void {
    if (this.ended || b.buffer.byteLength !== CHUNK) return;
    const ab = b.buffer as ArrayBuffer;
    this.worker.postMessage(ab, [ab]);
  }

  private fresh(): Batch {
    return {
      text: '',
      lens: new Int32Array(MAX_EVENTS * MAX_STRINGS),
      strings: 0,
      nums: new Float64Array(MAX_EVENTS * FIELDS),
      lines: new Int32Array(MAX_EVENTS),
      count: 0,
    };
  }

  /** adds a string to the batch; its index */
  private str(s: string): number {
    const b = this.batch;
    b.text += s;
    b.lens[b.strings] = s.length;
    return b.strings++;
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  push = (ev: TraceEvent): void => {
    const b = this.batch;
    const at = b.count * FIELDS;
    const nums = b.nums;
    if (ev.type === 'log.raw') {
      const r = ev as Raw;
      nums[at + F.kind] = 1;
      nums[at + F.text] = this.str(r.text);
      this.chars += r.text.length;
      const level = r.level ?? '';
      if (level !== this.lastLevel || this.lastLevelAt < 0) {
        this.lastLevel = level;
        this.lastLevelAt = this.str(level);
      }
      nums[at + F.level] = this.lastLevelAt;
      const source = r.source ?? '';
      if (source !== this.lastSource || this.lastSourceAt < 0) {
        this.lastSource = source;
        this.lastSourceAt = this.str(source);
      }
      nums[at + F.source] = this.lastSourceAt;
      const node = r.node ?? '';
      if (node !== this.lastNode || this.lastNodeAt < 0) {
        this.lastNode = node;
        this.lastNodeAt = this.str(node);
      }
      nums[at + F.node] = this.lastNodeAt;
      nums[at + F.pod] = r.pod !== undefined ? this.str(r.pod) : -1;
      nums[at + F.podUID] = r.podUID !== undefined ? this.str(r.podUID) : -1;
      nums[at + F.seq] = r.seq;
      nums[at + F.time] = r.time;
      b.lines[b.count] = r.origin?.line ?? 0;
    } else {
      const s = JSON.stringify(ev);
      nums[at + F.kind] = 0;
      nums[at + F.text] = this.str(s);
      this.chars += s.length;
    }
    b.count++;
    if (b.count === MAX_EVENTS || this.chars >= MAX_CHARS) this.send();
  };

  private send(): void {
    if (this.batch.count === 0) return;
    const { nums, lines, lens } = this.batch;
    this.worker.postMessage(this.batch, [
      nums.buffer as ArrayBuffer,
      lines.buffer as ArrayBuffer,
      lens.buffer as ArrayBuffer,
    ]);
    this.sent++;
    this.batch = this.fresh();
    this.chars = 0;
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
    this.worker.postMessage(null);
    await this.until(() => this.ended && !this.blocked);
    await this.worker.terminate();
  }
}
