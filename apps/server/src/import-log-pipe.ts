/**
 * The import-log command's output on a second thread. The parser stays on the main thread (it is stateful and
 * reads the input in order); encoding its events as NDJSON bytes runs in a worker (import-log-encoder.ts) on the
 * machine's other core. Events cross in batches of bytes and numbers, with nothing to clone: the strings of a
 * batch (a log.raw event's text, level, source, node and pod, any other event's JSON text as JSON.stringify makes
 * it) are joined here and written as UTF-8 into one buffer when the batch is sent, one write a batch, and the
 * buffer and the numbers are transferred; they come back once the batch is encoded, to carry a later one. The
 * worker escapes a log.raw text straight from its bytes. It hands back filled 1 MiB output buffers (transferred,
 * not copied), which are written to the sink here in the order the events were pushed, so the bytes are those
 * NdjsonOut writes on one thread.
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
import { CHUNK, rawLineBytes } from './import-log-out.ts';

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
 * A batch of events. Its strings travel as bytes: `bytes[0..used)` holds all of them end to end as UTF-8, `lens`
 * their lengths in UTF-16 units (`units` in all: when it equals `used`, every unit is one byte); `nums` holds FIELDS numbers per event (string fields as indices into the batch's
 * strings) and `lines` each log.raw event's origin line. A string in it is well-formed (no lone surrogate):
 * a log.raw event with one crosses as its finished JSON line, kind 0.
 */
export interface Batch {
  bytes: Uint8Array;
  used: number;
  units: number;
  lens: Int32Array;
  strings: number;
  nums: Float64Array;
  lines: Int32Array;
  count: number;
}
/** what the worker sends back: output buffers, and `done` once a batch is encoded (or `end` once all are) */
export type Reply = { bufs: Uint8Array[]; done: number; end?: boolean; spent?: Spent };
/** a batch's buffers once it is encoded, handed back to be filled again */
export type Spent = { bytes: ArrayBuffer; lens: ArrayBuffer; nums: ArrayBuffer; lines: ArrayBuffer };

/**
 * The encoder thread. Bundled (scripts/import-log.mjs runs the command as plain JavaScript), the encoder's bundle
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
/** a batch is sent once its strings hold this many UTF-16 units (an event that has more goes alone) */
const MAX_UNITS = 1 << 19;
const MAX_IN_FLIGHT = 4;
/** strings an event adds at most: text, level, source, node, pod, podUID */
const MAX_STRINGS = 6;

type Raw = Extract<TraceEvent, { type: 'log.raw' }>;

const EMPTY = new Uint8Array(0);

/** Buffer's own UTF-8 writer, the one write() calls after reading its arguments */
type Direct = Buffer & { utf8Write(s: string, at: number, max: number): number };
const utf8Write: (b: Buffer, s: string, at: number) => number =
  typeof (Buffer.prototype as Partial<Direct>).utf8Write === 'function'
    ? (b, s, at) => (b as Direct).utf8Write(s, at, b.length - at)
    : (b, s, at) => b.write(s, at);

/** no lone surrogate in s (String.prototype.isWellFormed, ES2024: Node 20 has it, the project's lib not yet) */
const wellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

export class EncoderPipe {
  private readonly worker: Worker;
  /** buffers of encoded batches (at most MAX_IN_FLIGHT + 1 sets are ever made) */
  private readonly spent: Spent[] = [];
  private batch = this.fresh();
  /** the batch's strings end to end, written out when it is sent */
  private text = '';
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
      if (r.spent) this.spent.push(r.spent);
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
    const s = this.spent.pop();
    return {
      bytes: s ? new Uint8Array(s.bytes) : EMPTY,
      used: 0,
      units: 0,
      lens: s ? new Int32Array(s.lens) : new Int32Array(MAX_EVENTS * MAX_STRINGS),
      strings: 0,
      nums: s ? new Float64Array(s.nums) : new Float64Array(MAX_EVENTS * FIELDS),
      lines: s ? new Int32Array(s.lines) : new Int32Array(MAX_EVENTS),
      count: 0,
    };
  }

  /** adds a string to the batch; its index */
  private str(s: string): number {
    const b = this.batch;
    this.text += s;
    b.lens[b.strings] = s.length;
    return b.strings++;
  }

  /** sends the batch first when an event of `units` UTF-16 units would take it past MAX_UNITS */
  private room(units: number): void {
    if (this.text.length + units > MAX_UNITS) this.send();
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
    // one write for the batch; UTF-8 takes at most 3 bytes a unit, and pages never written are never resident
    const text = this.text;
    if (b.bytes.length < text.length * 3)
      b.bytes = Buffer.allocUnsafeSlow(Math.max(text.length, MAX_UNITS) * 3);
    const out = Buffer.from(b.bytes.buffer, b.bytes.byteOffset, b.bytes.length);
    b.used = utf8Write(out, text, 0);
    b.units = text.length;
    this.worker.postMessage(b, [
      b.nums.buffer as ArrayBuffer,
      b.lines.buffer as ArrayBuffer,
      b.lens.buffer as ArrayBuffer,
      b.bytes.buffer as ArrayBuffer,
    ]);
    this.sent++;
    this.batch = this.fresh();
    this.text = '';
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
