/**
 * What one journal segment holds, so a read can pass over segments it does not need:
 *
 *   lastSeq   the highest seq written to it (firstSeq - 1 while empty): a read from `since` starts at the
 *             segment named <= since + 1 and never opens an older one
 *   pods      the pod UIDs with an event in it
 *   starts    how many `server.start` markers it holds (node-wide: every pod's history shows them)
 *
 * Where it lives: in memory, beside each Segment, never in a file of its own, so there is no index file to
 * go stale, be torn by a crash or be trusted blindly: it is always built from what the segment files hold
 * after recovery. recoverSegments sets every segment's lastSeq from the scan it makes anyway and indexes
 * the newest segment's pods in the same pass (indexRun, a string search, no JSON parse); the older
 * segments' pods are indexed after open, in the background and in slices (TraceJournal.whenIndexed,
 * indexRunSliced): the search costs some 1 s per 100 MB, which a start should not wait for. Until then
 * their pods are unknown and a read opens them. TraceJournal.writeBatch adds each event (indexEvent)
 * before its line is written.
 *
 * The index may claim more than a segment holds (a pod named in a bad line, in a tail recovery then cut,
 * or in a nested field), never less: it only ever lets a reader skip a segment that cannot matter.
 */
import type { TraceEvent } from '@syncscope/core/trace';

export type TraceFilter = (ev: TraceEvent) => boolean;

export interface SegmentIndex {
  lastSeq: number;
  /** Undefined while not known yet (an older segment, until it is indexed after open). */
  pods: Set<string> | undefined;
  starts: number;
}

export function emptyIndex(firstSeq: number): SegmentIndex {
  return { lastSeq: firstSeq - 1, pods: new Set(), starts: 0 };
}

/** Adds one event; called before its line reaches the file, so the index is never behind the file. */
export function indexEvent(idx: SegmentIndex, ev: TraceEvent): void {
  if (ev.seq > idx.lastSeq) idx.lastSeq = ev.seq;
  if ('podUID' in ev && typeof ev.podUID === 'string') idx.pods?.add(ev.podUID);
  if (ev.type === 'server.start') idx.starts++;
}

const POD_KEY = '"podUID":"';
const START_KEY = '"type":"server.start"';

/** Bytes searched between two looks at the clock (indexRunSliced), cut at a line's end. */
const CHUNK = 128 * 1024;

/**
 * Adds what a run of whole lines of a segment (segment-lines.ts) says to idx. Every `"podUID":"` in the
 * bytes is a key (inside a JSON string the quotes would be escaped), so collecting them all finds every pod
 * an event of the segment names. Blocks: for the newest segment at open; the older ones are indexed after
 * open by indexRunSliced.
 */
export function indexRun(idx: SegmentIndex, buf: Buffer): void {
  for (let from = 0; from < buf.length; ) from = indexPiece(idx, buf, from);
}

/** indexRun in pieces of about 1 ms, yielding to the event loop between them. */
export async function indexRunSliced(idx: SegmentIndex, buf: Buffer): Promise<void> {
  let sliceEnd = performance.now() + 1;
  for (let from = 0; from < buf.length; ) {
    from = indexPiece(idx, buf, from);
    if (performance.now() >= sliceEnd) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceEnd = performance.now() + 1;
    }
  }
}

/**
 * Indexes about CHUNK bytes of buf from `from`, ending at a line's end so no key is cut in two (a line
 * longer than CHUNK is one piece); returns where the next piece starts. Small pieces also keep each search
 * string on the heap, where a young collection frees it, rather than in a large external string.
 */
function indexPiece(idx: SegmentIndex, buf: Buffer, from: number): number {
  const end = buf.length;
  let nl = from + CHUNK >= end ? end - 1 : buf.lastIndexOf(0x0a, from + CHUNK);
  if (nl < from) nl = buf.indexOf(0x0a, from + CHUNK);
  const to = nl < 0 || nl >= end ? end : nl + 1;
  indexRange(idx, buf, from, to);
  return to;
}

/**
 * Adds the pods and markers of buf[start, end) to idx. The bytes are searched as a latin1 string (one copy,
 * then V8's string search, no call into C++ per match); a UID with a byte outside printable ASCII or an
 * escape is decoded from the bytes as JSON would.
 */
function indexRange(idx: SegmentIndex, buf: Buffer, start: number, end: number): void {
  const text = buf.toString('latin1', start, end);
  const pods = idx.pods as Set<string>;
  let prev = '';
  for (let at = text.indexOf(POD_KEY); at >= 0; at = text.indexOf(POD_KEY, at)) {
    at += POD_KEY.length;
    let close = text.indexOf('"', at);
    while (close > 0 && escaped(text, close)) close = text.indexOf('"', close + 1);
    if (close < 0) break;
    const raw = text.slice(at, close);
    at = close;
    // consecutive events are mostly of the same pod
    if (raw === prev || pods.has(raw)) continue;
    prev = raw;
    pods.add(PLAIN.test(raw) ? raw : uidText(buf, start + close - raw.length, start + close));
  }
  for (let at = text.indexOf(START_KEY); at >= 0; at = text.indexOf(START_KEY, at + START_KEY.length))
    idx.starts++;
}

/** Whether the quote at text[i] is escaped (an odd run of backslashes before it). */
function escaped(text: string, i: number): boolean {
  let n = 0;
  while (text.charCodeAt(i - 1 - n) === 0x5c) n++;
  return n % 2 === 1;
}

const PLAIN = /^[\x20-\x5b\x5d-\x7e]*$/;

/** The UID in buf[start, end) as JSON.parse would give it (UTF-8; a backslash in it is an escape). */
function uidText(buf: Buffer, start: number, end: number): string {
  const text = buf.toString('utf8', start, end);
  if (!text.includes('\\')) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/**
 * The filter of one pod's history: its events and the node-wide `server.start` markers. It carries the pod's
 * UID, so the journal can skip segments (mayHold) and lines (linesOf) that cannot pass it.
 */
export interface PodFilter extends TraceFilter {
  readonly podUID: string;
}

export function podFilter(podUID: string): PodFilter {
  const f = (ev: TraceEvent) => ev.type === 'server.start' || ('podUID' in ev && ev.podUID === podUID);
  return Object.assign(f, { podUID });
}

/** The pod a filter made by podFilter is for; undefined for any other filter. */
export function podOf(filter: TraceFilter | undefined): string | undefined {
  const uid = (filter as Partial<PodFilter> | undefined)?.podUID;
  return typeof uid === 'string' ? uid : undefined;
}

/** Whether a segment may hold an event that podFilter(podUID) passes. */
export function mayHold(idx: SegmentIndex, podUID: string): boolean {
  return idx.pods === undefined || idx.starts > 0 || idx.pods.has(podUID);
}

/** The byte strings one of which a line must contain to pass podFilter(podUID). */
export function podNeedles(podUID: string): Buffer[] {
  return [Buffer.from(`"podUID":${JSON.stringify(podUID)}`), Buffer.from(START_KEY)];
}
