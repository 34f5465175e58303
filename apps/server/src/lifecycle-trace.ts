/**
 * The trace with its history: the TraceRecorder's ring in front of the on-disk TraceJournal, so a client
 * asking for events older than the ring (after a restart, or once the ring has wrapped) still gets them.
 *
 * Boot, in buildApp (openTrace): open the journal → a recorder that continues its seq → preload the newest
 * events into the ring → every new event appended to the journal. Then `server.start` is recorded by the
 * caller, so a restart shows in the history as one event between the old run and the new one.
 *
 * JournaledTrace is what the routes read (it is a TraceSource): since() answers from the ring alone (what
 * it holds from boot on: the newest events preloaded, then every event recorded); sinceAsync and history()
 * reach further back, into the journal, which is only ever read one way (TraceJournal: a block at a time
 * through the thread pool).
 */
import type { PassiveClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { TraceEvent } from '@syncscope/core/trace';
import type { TraceSource } from './context.ts';
import { TraceJournal, type TraceJournalOptions } from './store/journal.ts';
import { checkPodStore } from './store/journal-pods.ts';
import type { StoreWriteError } from './store/write-error.ts';

/** Events preloaded into the ring at boot (at most the ring's capacity): enough for the UI's first view. */
const PRELOAD_EVENTS = 50_000;
const PAGE = 1_000;

type Filter = (ev: TraceEvent) => boolean;

export class JournaledTrace implements TraceSource {
  constructor(
    readonly recorder: TraceRecorder,
    readonly journal: TraceJournal,
  ) {}

  get next(): number {
    return this.recorder.next;
  }

  /** The oldest seq held anywhere: the journal's first, unless retention has left it newer than the ring. */
  get oldest(): number {
    const j = this.journal.firstSeq;
    const r = this.recorder.oldest;
    return j > 0 && (r === 0 || j < r) ? j : r;
  }

  subscribe(l: (ev: TraceEvent) => void, name?: string): () => void {
    return this.recorder.subscribe(l, name);
  }

  /**
   * Why the trace cannot be kept on disk now (TraceJournal.failure), asked again first: events the recorder
   * holds for want of a seq are issued once one can be reserved, and a refused segment write is tried again
   * (in the background: the answer after it tells). Undefined while the journal takes all.
   */
  storageFailure(): StoreWriteError | undefined {
    this.recorder.resume();
    this.journal.retry();
    return this.journal.failure;
  }

  /** The listeners that threw and were removed (TraceRecorder.failures). */
  get failures(): TraceRecorder['failures'] {
    return this.recorder.failures;
  }

  /** True when the ring alone answers since(after): no disk read is needed. */
  ringCovers(after: number): boolean {
    return this.recorder.size > 0 && after + 1 >= this.recorder.oldest;
  }

  /** The ring's events with seq > since (TraceRecorder.since); older history: sinceAsync, history(). */
  since(since = 0, filter?: Filter, limit = Number.POSITIVE_INFINITY): TraceEvent[] {
    return this.recorder.since(since, filter, limit);
  }

  /**
   * Events with seq > since from the journal and the ring: history older than the ring is read from the
   * journal (GET /api/v1/trace); whatever the ring lost while that read ran is read from the journal too.
   */
  async sinceAsync(since = 0, filter?: Filter, limit = Number.POSITIVE_INFINITY): Promise<TraceEvent[]> {
    let out: TraceEvent[] = [];
    let cursor = since;
    for (;;) {
      const ringOldest = this.recorder.oldest;
      if (this.recorder.size > 0 && cursor + 1 >= ringOldest)
        return out.concat(this.recorder.since(cursor, filter, limit - out.length));
      const before = this.recorder.size > 0 ? ringOldest : Number.POSITIVE_INFINITY;
      out = out.concat(await this.journal.read(cursor, limit - out.length, filter, before));
      if (out.length >= limit || before === Number.POSITIVE_INFINITY) return out;
      // every event below `before` was seen (the read was not cut by limit)
      cursor = Math.max(cursor, before - 1);
    }
  }

  /**
   * Every event with seq > since, oldest first, streamed: the journal (one segment in memory at a time) up
   * to where the ring begins, then the ring a page at a time. Runs until the newest event; the caller stops.
   */
  async *history(since = 0, filter?: Filter): AsyncGenerator<TraceEvent> {
    let cursor = since;
    if (this.recorder.size === 0 || since + 1 < this.recorder.oldest) {
      for await (const ev of this.journal.events(since)) {
        if (this.recorder.size > 0 && ev.seq >= this.recorder.oldest) break;
        cursor = ev.seq;
        if (!filter || filter(ev)) yield ev;
      }
    }
    for (;;) {
      const page = await this.sinceAsync(cursor, undefined, PAGE);
      const last = page[page.length - 1];
      if (!last) return;
      cursor = last.seq;
      for (const ev of page) if (!filter || filter(ev)) yield ev;
    }
  }
}

export interface OpenTraceOptions extends Omit<TraceJournalOptions, 'dir'> {
  dir: string;
  clock: PassiveClock;
  capacity?: number;
  /** The pod store beside the journal: reported when it is missing or empty while the journal had pods. */
  podStoreDir?: string;
}

/**
 * Opens the journal in dir and a recorder continuing it: seq goes on above both the last event on disk
 * and the seqs an earlier run reserved (after a crash: a gap, never a reused seq), the ring starts with the newest events, and every event recorded from now on is appended to the journal.
 * With podStoreDir, warns when that store is missing or empty while the journal's last run had pods
 * (journal-pods.ts). Rejects only if the directory cannot be created or read.
 */
export async function openTrace(
  opts: OpenTraceOptions,
): Promise<{ trace: JournaledTrace; firstBoot: boolean }> {
  const { clock, capacity, podStoreDir, ...journalOpts } = opts;
  const journal = new TraceJournal(journalOpts);
  const { events } = await journal.open();
  const recorder = new TraceRecorder(clock, capacity, journal.resumeAfter + 1);
  const tail = await journal.tail(Math.min(recorder.capacity, PRELOAD_EVENTS));
  if (podStoreDir !== undefined)
    checkPodStore(podStoreDir, journal.dir, tail, opts.warn ?? ((msg) => console.warn(msg)));
  recorder.preload(tail);
  // every seq is reserved on disk before it is served, so a crash can leave a gap but never reissue one
  recorder.reserveSeqs((next) => journal.reserveSeqs(next));
  recorder.subscribe((ev) => journal.append(ev), 'the trace journal');
  return { trace: new JournaledTrace(recorder, journal), firstBoot: events === 0 };
}
