/**
 * A log opened in the page gets its unread entries back: the parse worker sends each as its raw-line record
 * (core raw-record.ts, the line the server keeps in an import's `raw.ndjson`), never as an event; here each
 * becomes the log.raw event it stands for, its text read from the log's bytes by the record's offsets, put in
 * its place among the trace events, every event numbered as in the importer's whole stream. A shared import is
 * read back the same way (shared.ts), so both give the same replay. One slice of the file is read for a run of
 * records close together, so a batch costs a few reads, not one per line.
 */
import { type RawRecord, rawEventOf, recordText } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';

/** records at most this far apart are read in one slice */
const GAP = 64 * 1024;
/** and one slice spans at most this (a single longer line is read alone) */
const RUN = 4 << 20;

/** Each record's message, read from `bytes` (the log as the worker read it) by its offsets. */
export async function recordTexts(bytes: Blob, records: readonly RawRecord[]): Promise<string[]> {
  const texts = records.map((r) => (r.start < 0 || r.end <= r.start ? recordText(r, undefined) : ''));
  const order: number[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as RawRecord;
    if (r.start >= 0 && r.end > r.start) order.push(i);
  }
  order.sort((a, b) => (records[a] as RawRecord).start - (records[b] as RawRecord).start);
  for (let j = 0; j < order.length; ) {
    const first = records[order[j] as number] as RawRecord;
    const from = first.start;
    let to = first.end;
    let k = j + 1;
    for (; k < order.length; k++) {
      const r = records[order[k] as number] as RawRecord;
      if (r.start > to + GAP || Math.max(to, r.end) - from > RUN) break;
      to = Math.max(to, r.end);
    }
    const slice = new Uint8Array(await bytes.slice(from, to).arrayBuffer());
    for (; j < k; j++) {
      const i = order[j] as number;
      const r = records[i] as RawRecord;
      texts[i] = recordText(r, slice.subarray(r.start - from, r.end - from));
    }
  }
  return texts;
}

/**
 * Puts batches of trace events and the records that left the parser with them back into one stream, in order:
 * a record goes before the first event whose trace number is past its `after`; every event is renumbered by
 * its place in the stream.
 */
export class RawMerge {
  private seq = 0;

  merge(
    events: readonly TraceEvent[],
    records: readonly RawRecord[],
    texts: readonly string[],
  ): TraceEvent[] {
    const out: TraceEvent[] = [];
    let r = 0;
    const put = () => {
      const rec = records[r] as RawRecord;
      out.push(rawEventOf(rec.entry, texts[r] as string, ++this.seq));
      r++;
    };
    for (const ev of events) {
      while (r < records.length && (records[r] as RawRecord).entry.after < ev.seq) put();
      ev.seq = ++this.seq;
      out.push(ev);
    }
    while (r < records.length) put();
    return out;
  }
}
