/**
 * What one journal segment holds, so a read can pass over segments it does not need:
 *
 *   lastSeq   the highest seq written to it (firstSeq - 1 while empty): a read from `since` starts at the
 *             segment named <= since + 1 and never opens an older one
 *   pods      the pod UIDs with an event in it
 *   starts    how many `server.start` markers it holds (node-wide: every pod's history shows them)
 *
 * Where it lives: in memory, beside each Segment, never in a file of its own. recoverSegments reads every
 * byte of every segment at open anyway (to find damage), so the index is built in that same pass
 * (indexBuffer, a byte search, no JSON parse); TraceJournal.writeBatch adds each event (indexEvent) before
 * its line is written. So there is no index file to go stale, be torn by a crash or trusted blindly: what
 * open builds is what the files hold after recovery. The cost is a search at each start (measured in the
 * P11 notes of the README), not a second write per batch.
 *
 * The index may claim more than a segment holds (a pod named in a bad line, in a tail recovery then cut,
 * or in a nested field), never less: it only ever lets a reader skip a segment that cannot matter.
 */
import type { TraceEvent } from '@syncscope/core/trace';

export type TraceFilter = (ev: TraceEvent) => boolean;

export interface SegmentIndex {
  lastSeq: number;
  pods: Set<string>;
  starts: number;
}

export function emptyIndex(firstSeq: number): SegmentIndex {
  return { lastSeq: firstSeq - 1, pods: new Set(), starts: 0 };
}

/** Adds one event; called before its line reaches the file, so the index is never behind the file. */
export function indexEvent(idx: SegmentIndex, ev: TraceEvent): void {
  if (ev.seq > idx.lastSeq) idx.lastSeq = ev.seq;
  if ('podUID' in ev && typeof ev.podUID === 'string') idx.pods.add(ev.podUID);
  if (ev.type === 'server.start') idx.starts++;
}

const POD_KEY = Buffer.from('"podUID":"');
const START_KEY = Buffer.from('"type":"server.start"');

/**
 * The index of the first `end` bytes of a segment (its lines as encodeEvent wrote them), whose highest good
 * seq is lastSeq. Every `"podUID":"` in the bytes is a key (inside a JSON string the quotes would be
 * escaped), so collecting them all finds every pod an event of the segment names.
 */
export function indexBuffer(buf: Buffer, end: number, lastSeq: number): SegmentIndex {
  const idx: SegmentIndex = { lastSeq, pods: new Set(), starts: 0 };
  const bytes = buf.subarray(0, end);
  let prev: Buffer | undefined;
  for (let at = bytes.indexOf(POD_KEY); at >= 0; at = bytes.indexOf(POD_KEY, at)) {
    at += POD_KEY.length;
    const close = bytes.indexOf(0x22, at);
    if (close < 0) break;
    // consecutive events are mostly of the same pod: compare bytes before making a string
    if (prev?.length === close - at && bytes.compare(prev, 0, prev.length, at, close) === 0) continue;
    prev = bytes.subarray(at, close);
    idx.pods.add(uidText(prev));
    at = close;
  }
  for (let at = bytes.indexOf(START_KEY); at >= 0; at = bytes.indexOf(START_KEY, at + START_KEY.length))
    idx.starts++;
  return idx;
}

/** A UID as JSON.parse would give it (a backslash in it is an escape). */
function uidText(raw: Buffer): string {
  const text = raw.toString('utf8');
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
  return idx.starts > 0 || idx.pods.has(podUID);
}

/** The byte strings one of which a line must contain to pass podFilter(podUID). */
export function podNeedles(podUID: string): Buffer[] {
  return [Buffer.from(`"podUID":${JSON.stringify(podUID)}`), START_KEY];
}
