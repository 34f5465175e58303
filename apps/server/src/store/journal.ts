/**
 * TraceJournal: the trace on disk, so history outlives the process (a restart, or `kill -9`) and can be
 * replayed or exported after it has left the in-memory ring. Format: see segment.ts.
 *
 * Who calls it: the server, once at boot (lifecycle-trace.ts openTrace) —
 *   await journal.open();
 *   const trace = new TraceRecorder(clock, capacity, journal.resumeAfter + 1);
 *   trace.preload(await journal.tail(n));
 *   trace.reserveSeqs((next) => journal.reserveSeqs(next));   // seq-reservation.ts
 *   trace.subscribe((ev) => journal.append(ev));
 *   trace.record({ type: 'server.start', ... });
 * and journal.close() on shutdown. Every read, at boot (open, tail) as from a request handler (read,
 * events), goes one way: a segment a block at a time through the thread pool (segment-lines.ts), decoded
 * in ~1 ms slices, so neither the event loop nor memory grows with the size of a segment or the journal.
 *
 * Timeline of one event:
 *   append(ev)   queued in memory; never blocks, never throws once open (it is a recorder listener)
 *   <= 100 ms    the queue is written to the current segment (one write per batch); from then on the event
 *                survives the process being killed. With `fsync: true` it also survives a power loss.
 *   refused      a write the disk refuses (EIO, EROFS, ENOSPC) keeps what did not reach the file at the
 *                head of the queue (up to KEPT_MAX_BYTES, the oldest dropped and counted beyond), tries
 *                again every WRITE_RETRY_MS in a new segment, and names the cause in `failure` until a
 *                write succeeds (the API refuses writes and /readyz fails meanwhile).
 *   roll         when the next line would take the segment past segmentBytes, a new segment starts with it
 *   retention    past maxBytes in total, whole segments are deleted, oldest first (never the current one)
 * Reads see every appended event, written or still queued: disk first, then the queue.
 *
 * Damage found at open is set aside in `damaged/` and reported, never fatal (see open()).
 *
 * One process owns a directory at a time (no lock file; the server's data dir is its own).
 */
import { close, fsync, ftruncateSync, openSync, rmSync, statSync, write } from 'node:fs';
import { join } from 'node:path';
import type { TraceEvent } from '@syncscope/core/trace';
import { FILE_MODE, fsyncDirSync } from './atomic-file.ts';
import { recoverSegments, reportChecksumFailures } from './recovery.ts';
import { encodeEvent, newLineState, type Segment, segmentName } from './segment.ts';
import {
  emptyIndex,
  indexEvent,
  indexRunSliced,
  type SegmentIndex,
  type TraceFilter,
} from './segment-index.ts';
import { type LineRun, segmentLines } from './segment-lines.ts';
import {
  type ChecksumFailures,
  Collector,
  checksumFailures,
  decodeSliced,
  SLICE_MS,
  yieldToLoop,
} from './segment-read.ts';
import { type ReservationIO, SeqReservation } from './seq-reservation.ts';
import { StoreWriteError } from './write-error.ts';

export const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
export const DEFAULT_FLUSH_INTERVAL_MS = 100;
/** A queue this large is written at once rather than waiting for the interval. */
const FLUSH_EARLY_BYTES = 1024 * 1024;
/** While the disk refuses writes: how long between tries, and how much of the queue is kept meanwhile. */
export const WRITE_RETRY_MS = 1_000;
export const KEPT_MAX_BYTES = 64 * 1024 * 1024;

export interface TraceJournalOptions {
  dir: string;
  /** A segment is closed once the next line would take it past this size (default 8 MiB). */
  segmentBytes?: number;
  /**
   * Total size kept on disk; the oldest segments are deleted beyond it (default 256 MiB). The segment being
   * written is never deleted, so the bound is max(maxBytes, segmentBytes).
   */
  maxBytes?: number;
  /** Longest time an appended event waits in memory (default 100 ms). */
  flushIntervalMs?: number;
  /** fsync the segment after every write, so events also survive a power loss (default false). */
  fsync?: boolean;
  warn?: (msg: string) => void;
  /** How seq reservations reach the disk (seq-reservation.ts); tests inject a disk that refuses. */
  reservationIO?: ReservationIO;
}

export type { TraceFilter } from './segment-index.ts';

interface Queued {
  ev: TraceEvent;
  line: string;
  bytes: number;
}

/** How far a batch got: events whole in the file, and the file it was writing. */
interface Progress {
  events: number;
  path: string;
}

export class TraceJournal {
  readonly dir: string;
  private readonly segmentBytes: number;
  private readonly maxBytes: number;
  private readonly flushIntervalMs: number;
  private readonly fsyncWrites: boolean;
  private readonly warn: (msg: string) => void;

  private segments: Segment[] = [];
  /** Descriptor of the last segment, open for appending; undefined until the first write after open/roll. */
  private fd: number | undefined;
  /** A write failed part-way: the next write starts a fresh segment rather than append after a torn line. */
  private broken = false;
  private queue: Queued[] = [];
  private queuedBytes = 0;
  /** Taken from the queue, being written (still served to readers until the write completes). */
  private writing: Queued[] = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private last = 0;
  private flushed = 0;
  private state: 'new' | 'opening' | 'open' | 'closed' = 'new';
  private warnedDrop = false;
  private bad = 0;
  private readonly seqs: SeqReservation;
  private reservedAtOpen = 0;
  private indexed: Promise<void> = Promise.resolve();
  /** Why the last segment write failed; undefined once one succeeds. */
  private writeFailure: StoreWriteError | undefined;
  private droppedEvents = 0;

  constructor(opts: TraceJournalOptions) {
    this.dir = opts.dir;
    this.segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.flushIntervalMs = opts.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.fsyncWrites = opts.fsync ?? false;
    this.warn = opts.warn ?? ((msg) => console.warn(msg));
    this.seqs = new SeqReservation(this.dir, this.warn, undefined, opts.reservationIO);
  }

  /**
   * Scans the segments already in dir (recovery.ts: damage is set aside in `damaged/` and reported, never
   * fatal) and reads the seq reservation (seq-reservation.ts). Resolves with the last seq on disk (0 if
   * none) and the number of events kept.
   */
  async open(): Promise<{ lastSeq: number; events: number }> {
    if (this.state !== 'new') throw new Error('trace journal: open() called twice');
    this.state = 'opening';
    const found = await recoverSegments(this.dir, this.warn);
    this.segments = found.segments;
    this.last = found.lastSeq;
    this.flushed = found.lastSeq;
    this.bad = found.badRecords;
    this.reservedAtOpen = this.seqs.open(this.last);
    this.state = 'open';
    this.enforceLimit();
    this.indexed = this.indexOlderSegments().catch(() => {});
    return { lastSeq: this.last, events: this.eventCount };
  }

  /**
   * Resolves once the pods of the segments found at open are indexed (segment-index.ts) and their records'
   * checksums checked (counted in badRecords, each damaged segment named in one warning), which runs after
   * open in the background, in slices. Reads before then are as right, only slower: they open segments a
   * pod filter will later skip (readers check every record's checksum themselves).
   */
  whenIndexed(): Promise<void> {
    return this.indexed;
  }

  /**
   * The seq a new run continues after: the higher of the last seq on disk and what an earlier run reserved
   * (so a seq it served but did not write is never issued again). Valid after open().
   */
  get resumeAfter(): number {
    return Math.max(this.last, this.reservedAtOpen);
  }

  /**
   * Bad records found: between good ones at open, and those failing their checksum in the older segments
   * once whenIndexed() resolves (kept on disk, skipped by readers). The metric
   * syncscope_journal_bad_records_total.
   */
  get badRecords(): number {
    return this.bad;
  }

  /**
   * The recorder's reserver (TraceRecorder.reserveSeqs): durably reserves seqs from next on and returns the
   * highest. Synchronous: one small file written with fsync. When that write fails it returns less than
   * next (a refusal: the recorder issues no seq it could issue twice after a crash).
   */
  reserveSeqs(next: number): number {
    return this.seqs.extend(next);
  }

  /**
   * Why the journal cannot keep events now: a seq reservation or a segment write the disk refused (the
   * cause in the system's words); undefined while both go through. The API refuses writes meanwhile.
   */
  get failure(): StoreWriteError | undefined {
    return this.seqs.failure ?? this.writeFailure;
  }

  /**
   * While a segment write is refused: tries again now, in the background, rather than at the next
   * WRITE_RETRY_MS (someone is asking: a write request, /readyz). `failure` clears once it succeeds.
   */
  retry(): void {
    if (this.writeFailure && this.writing.length === 0 && this.state === 'open') this.flushInBackground();
  }

  /** Events dropped because more than KEPT_MAX_BYTES waited for a disk that refused them. */
  get dropped(): number {
    return this.droppedEvents;
  }

  /** Highest seq appended (written or queued); 0 if none. */
  get lastSeq(): number {
    return this.last;
  }

  /** Lowest seq the journal still holds (retention deletes whole segments, oldest first); 0 if none. */
  get firstSeq(): number {
    const seg = this.segments.find((s) => s.events > 0);
    if (seg) return seg.firstSeq;
    const q = this.writing[0] ?? this.queue[0];
    return q ? q.ev.seq : 0;
  }

  /** Highest seq written to the file: from here on it survives the process being killed. */
  get flushedSeq(): number {
    return this.flushed;
  }

  /** Events in the journal, on disk and queued. */
  get eventCount(): number {
    return this.segments.reduce((n, s) => n + s.events, 0) + this.writing.length + this.queue.length;
  }

  /** Bytes on disk across all segments. */
  get bytes(): number {
    return this.segments.reduce((n, s) => n + s.bytes, 0);
  }

  /** Queues an event. Events must come with strictly increasing seq; one that does not is dropped. */
  append(ev: TraceEvent): void {
    if (this.state !== 'open') {
      if (this.state !== 'closed') throw new Error('trace journal: append() before open()');
      return;
    }
    if (ev.seq <= this.last) {
      if (!this.warnedDrop) this.warn(`trace journal: dropping event seq ${ev.seq} (last was ${this.last})`);
      this.warnedDrop = true;
      return;
    }
    this.last = ev.seq;
    const line = encodeEvent(ev);
    const bytes = Buffer.byteLength(line);
    this.queue.push({ ev, line, bytes });
    this.queuedBytes += bytes;
    if (this.queuedBytes >= FLUSH_EARLY_BYTES && !this.writeFailure) this.flushInBackground();
    else this.flushLater();
  }

  private flushLater(): void {
    if (this.timer || this.state !== 'open') return;
    const ms = this.writeFailure ? WRITE_RETRY_MS : this.flushIntervalMs;
    this.timer = setTimeout(() => this.flushInBackground(), ms);
    this.timer.unref();
  }

  /**
   * Writes everything appended so far. Resolves once it is in the file (and fsynced with `fsync: true`);
   * rejects if the disk refused that write: what did not reach the file is queued again, at the head, and
   * tried again in WRITE_RETRY_MS in a new segment (see `failure`).
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    this.writing.push(...batch);
    const progress: Progress = { events: 0, path: this.dir };
    const done = this.chain
      .then(() => this.writeBatch(batch, progress))
      .then(
        () => {
          this.writeFailure = undefined;
        },
        (err: unknown) => {
          this.writeFailure = StoreWriteError.from(err, progress.path, 'trace journal');
          throw err;
        },
      )
      .finally(() => {
        // in one step, so a reader never sees an event twice or not at all
        this.writing.splice(0, batch.length);
        if (progress.events < batch.length && this.state === 'open') this.keep(batch.slice(progress.events));
      });
    this.chain = done.catch(() => {});
    return done;
  }

  /** Puts events the disk refused back at the head of the queue, within KEPT_MAX_BYTES, and retries. */
  private keep(rest: Queued[]): void {
    let all = [...rest, ...this.queue];
    let bytes = all.reduce((n, q) => n + q.bytes, 0);
    let cut = 0;
    while (bytes > KEPT_MAX_BYTES && cut < all.length) bytes -= (all[cut++] as Queued).bytes;
    if (cut > 0) {
      if (this.droppedEvents === 0)
        this.warn(`trace journal: more than ${KEPT_MAX_BYTES} bytes wait for the disk; dropping the oldest`);
      this.droppedEvents += cut;
      all = all.slice(cut);
    }
    this.queue = all;
    this.queuedBytes = bytes;
    this.flushLater();
  }

  /**
   * Flushes, fsyncs and closes the current segment, then gives back the seqs reserved but not issued (the
   * next run continues at lastSeq + 1, no gap). Later appends are ignored.
   */
  async close(): Promise<void> {
    if (this.state !== 'open') {
      this.state = 'closed';
      return;
    }
    try {
      await this.flush();
    } finally {
      this.state = 'closed';
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      await this.chain;
      await this.closeSegment(true);
      await this.seqs.settle();
      this.seqs.release(this.last);
    }
  }

  /**
   * Events with seq > since (and < before, when given), oldest first, optionally filtered; at most `limit`.
   * Segments are read a block at a time and decoded in slices of about 1 ms (segment-read.ts); a segment at
   * or below `since`, or whose index shows none of a pod filter's events (podFilter), is not read at all.
   * Batches written while it reads are picked up: the disk is read again from where it got to until no
   * write completed during a pass, and only then is the in-memory queue taken (synchronously, so nothing
   * leaves it unseen).
   */
  async read(
    since = 0,
    limit = Number.POSITIVE_INFINITY,
    filter?: TraceFilter,
    before = Number.POSITIVE_INFINITY,
  ): Promise<TraceEvent[]> {
    const c = new Collector(since, limit, filter, before);
    if (c.full) return c.out;
    for (;;) {
      const flushedBefore = this.flushed;
      let seg = this.segments[this.segmentIndexFor(c.seen)];
      while (seg) {
        if (c.skips(seg)) {
          if (c.full) return c.out;
        } else {
          c.startSegment();
          for await (const run of runsOf(seg.path)) if (!(await c.addRun(run.buf))) return c.out;
        }
        const first = seg.firstSeq;
        seg = this.segments.find((s) => s.firstSeq > first);
      }
      if (this.flushed === flushedBefore) break;
    }
    return c.addQueued([...this.writing, ...this.queue]);
  }

  /**
   * The newest n events, oldest first (to preload a TraceRecorder at boot): read from the oldest segment
   * that holds one of them (the counts are known since open), keeping no more than 2n in memory meanwhile.
   */
  async tail(n: number): Promise<TraceEvent[]> {
    if (n <= 0) return [];
    let have = this.writing.length + this.queue.length;
    let from = this.segments.length;
    while (from > 0 && have < n) have += (this.segments[--from] as Segment).events;
    const first = this.segments[from]?.firstSeq ?? (this.writing[0] ?? this.queue[0])?.ev.seq ?? 1;
    const out: TraceEvent[] = [];
    for await (const ev of this.events(first - 1)) {
      out.push(ev);
      if (out.length >= 2 * n) out.splice(0, out.length - n);
    }
    return out.slice(-n);
  }

  /**
   * Every event with seq > since, oldest first, read a block at a time (memory stays bounded by a block,
   * decoded in slices of about 1 ms): for exporting history that is no longer in the recorder's ring.
   * Segments written while iterating are included; a segment deleted by retention meanwhile is skipped.
   */
  async *events(since = 0, filter?: TraceFilter): AsyncGenerator<TraceEvent> {
    let seen = since;
    let seg = this.segments[this.segmentIndexFor(since)];
    while (seg) {
      const lines = newLineState();
      for await (const run of seg.index.lastSeq > seen ? runsOf(seg.path) : []) {
        const evs = await decodeSliced(run.buf, seen, lines);
        let sliceEnd = performance.now() + SLICE_MS;
        for (let i = 0; i < evs.length; i++) {
          const ev = evs[i] as TraceEvent;
          if (ev.seq <= seen) continue;
          seen = ev.seq;
          if (!filter || filter(ev)) yield ev;
          // a consumer that takes events as fast as they come runs in microtasks: give the loop a turn
          if ((i & 255) === 255 && performance.now() >= sliceEnd) {
            await yieldToLoop();
            sliceEnd = performance.now() + SLICE_MS;
          }
        }
      }
      const first = seg.firstSeq;
      seg = this.segments.find((s) => s.firstSeq > first);
    }
    for (const q of [...this.writing, ...this.queue]) {
      if (q.ev.seq <= seen) continue;
      seen = q.ev.seq;
      if (!filter || filter(q.ev)) yield q.ev;
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<TraceEvent> {
    return this.events(0);
  }

  private async indexOlderSegments(): Promise<void> {
    for (const seg of [...this.segments]) {
      if (seg.index.pods !== undefined) continue;
      const index: SegmentIndex = { lastSeq: seg.index.lastSeq, pods: new Set(), starts: 0 };
      const lines = newLineState();
      const failed: ChecksumFailures = { count: 0, offsets: [] };
      for await (const run of runsOf(seg.path)) {
        if (this.state !== 'open') return;
        await indexRunSliced(index, run.buf);
        // damage inside a record that its frame does not show (open judged these segments by frame only)
        await checksumFailures(run.buf, run.base, lines, failed);
      }
      // (a segment deleted by retention meanwhile is no longer in the list: what it got does not matter)
      seg.index = index;
      this.bad += reportChecksumFailures(seg.path, failed, this.warn);
    }
  }

  private flushInBackground(): void {
    const failing = this.writeFailure !== undefined;
    this.flush().catch((err: Error) => {
      if (!failing)
        this.warn(
          `trace journal: write failed (${err.message}); events kept, tried again every ${WRITE_RETRY_MS} ms`,
        );
    });
  }

  /** Index of the segment that may hold seq since + 1 (the last one named <= since + 1), else 0. */
  private segmentIndexFor(since: number): number {
    let idx = 0;
    for (let i = 0; i < this.segments.length; i++) {
      if ((this.segments[i] as Segment).firstSeq <= since + 1) idx = i;
      else break;
    }
    return idx;
  }

  private async writeBatch(batch: Queued[], progress: Progress): Promise<void> {
    let i = 0;
    while (i < batch.length) {
      const first = batch[i] as Queued;
      let seg = this.segments[this.segments.length - 1];
      if (!seg || this.broken || (seg.bytes > 0 && seg.bytes + first.bytes > this.segmentBytes)) {
        progress.path = join(this.dir, segmentName(first.ev.seq));
        seg = await this.roll(first.ev.seq);
      }
      progress.path = seg.path;
      const start = i;
      const lines: string[] = [];
      let bytes = 0;
      while (i < batch.length) {
        const q = batch[i] as Queued;
        if (lines.length > 0 && seg.bytes + bytes + q.bytes > this.segmentBytes) break;
        // indexed before it is written: a reader never finds an event the index does not know of
        indexEvent(seg.index, q.ev);
        lines.push(q.line);
        bytes += q.bytes;
        i++;
      }
      let off = 0;
      try {
        this.fd ??= openSync(seg.path, 'a', FILE_MODE);
        await writeAll(this.fd, Buffer.from(lines.join('')), (n) => {
          off = n;
        });
        if (this.fsyncWrites) await fsyncFd(this.fd);
      } catch (err) {
        this.broken = true;
        // the lines that reached the file whole stay there; a torn one after them is cut when the disk lets
        let whole = 0;
        let at = 0;
        while (start + whole < i && at + (batch[start + whole] as Queued).bytes <= off)
          at += (batch[start + whole++] as Queued).bytes;
        if (at < off && this.fd !== undefined) truncateQuietly(this.fd, seg.bytes + at);
        seg.bytes += at;
        seg.events += whole;
        progress.events = start + whole;
        if (whole > 0) this.flushed = (batch[start + whole - 1] as Queued).ev.seq;
        throw err;
      }
      seg.bytes += bytes;
      seg.events += lines.length;
      progress.events = i;
      this.flushed = (batch[i - 1] as Queued).ev.seq;
    }
    this.enforceLimit();
  }

  private async roll(firstSeq: number): Promise<Segment> {
    await this.closeSegment(this.fsyncWrites);
    const path = join(this.dir, segmentName(firstSeq));
    // a retry after a write the disk refused may start where that segment began: the same file, continued
    const last = this.segments[this.segments.length - 1];
    const same = last?.path === path ? last : undefined;
    const seg: Segment = same ?? { firstSeq, path, bytes: 0, events: 0, index: emptyIndex(firstSeq) };
    this.fd = openSync(seg.path, 'a', FILE_MODE);
    seg.bytes = statSync(seg.path).size;
    if (this.fsyncWrites) fsyncDirSync(this.dir);
    if (!same) this.segments.push(seg);
    this.broken = false;
    this.enforceLimit();
    return seg;
  }

  private async closeSegment(sync: boolean): Promise<void> {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    if (sync) await fsyncFd(fd).catch(() => {});
    await new Promise<void>((resolve) => close(fd, () => resolve()));
  }

  private enforceLimit(): void {
    let total = this.bytes;
    while (this.segments.length > 1 && total > this.maxBytes) {
      const old = this.segments.shift() as Segment;
      rmSync(old.path, { force: true });
      total -= old.bytes;
    }
  }
}

/** The runs of whole lines of a segment; they end early when it is deleted by retention while read. */
async function* runsOf(path: string): AsyncGenerator<LineRun> {
  try {
    yield* segmentLines(path);
  } catch {
    // deleted by retention since it was listed
  }
}

/** Writes buf whole; `wrote` is told the bytes written so far after each write (for a write cut short). */
async function writeAll(fd: number, buf: Buffer, wrote: (bytes: number) => void): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    off += await new Promise<number>((resolve, reject) =>
      write(fd, buf, off, buf.length - off, null, (err, n) => (err ? reject(err) : resolve(n))),
    );
    wrote(off);
  }
}

function truncateQuietly(fd: number, bytes: number): void {
  try {
    ftruncateSync(fd, bytes);
  } catch {
    // a disk that refuses this too: the torn line is a bad record the next open reports
  }
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}
