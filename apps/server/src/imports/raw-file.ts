/**
 * An import's unread entries (`raw.ndjson` beside `log.txt`): the kubelet lines no family read make no event
 * in `trace.ndjson`; each is one JSON array a line, in the order their log.raw events would have had among the
 * trace's events:
 *
 *   [after, node, line, lines, time, level, source, pod, podUID, length, hash, start, end, text?]
 *
 * `after`: how many trace events come before it; pod and podUID null when absent; `start`/`end`: the byte
 * offsets in log.txt of the entry's first line, whose tail of `length` UTF-16 units (checked by `hash`) is its
 * message (RawEntries, entryText); `text`: the message itself for an entry of several lines. Written by the
 * parse thread (writeRawFile); read by raw-read.ts.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { OffsetResolver, type RawEntries, type RawEntry } from '@syncscope/core/kubelet-log';

const BLOCK = 1 << 20;

/** One entry as its line of raw.ndjson. */
function entryLine(e: RawEntry, start: number, end: number): string {
  const j = JSON.stringify;
  const pod = e.pod === undefined ? 'null' : j(e.pod);
  const uid = e.podUID === undefined ? 'null' : j(e.podUID);
  const text = e.text === undefined ? '' : `,${j(e.text)}`;
  return `[${e.after},${j(e.node)},${e.line},${e.lines},${e.time},${j(e.level)},${j(e.source)},${pod},${uid},${e.length},${e.hash},${start},${end}${text}]\n`;
}

/**
 * Writes `entries` to `out`, their first lines' offsets found in one pass over `log` (the log as kept); how many
 * entries there are. Memory: 16 bytes an entry for the offsets, and one block.
 */
export function writeRawFile(entries: RawEntries, log: string, out: string): number {
  const order = entries.lineOrder();
  const starts = new Float64Array(entries.size).fill(-1);
  const ends = new Float64Array(entries.size).fill(-1);
  let k = 0;
  const ranges = (function* () {
    for (const i of order) {
      const e = entries.at(i);
      yield { node: e.node, first: e.line, last: e.line };
    }
  })();
  const r = new OffsetResolver(ranges, (x) => {
    const i = order[k++] as number;
    starts[i] = x.start ?? -1;
    ends[i] = x.end ?? -1;
  });
  const lf = openSync(log, 'r');
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    for (let got = readSync(lf, buf, 0, BLOCK, null); got > 0; got = readSync(lf, buf, 0, BLOCK, null))
      r.feed(buf.subarray(0, got));
    r.end();
  } finally {
    closeSync(lf);
  }
  const of = openSync(out, 'w');
  try {
    let text = '';
    for (let i = 0; i < entries.size; i++) {
      text += entryLine(entries.at(i), starts[i] as number, ends[i] as number);
      if (text.length >= BLOCK) {
        writeSync(of, text);
        text = '';
      }
    }
    if (text !== '') writeSync(of, text);
  } finally {
    closeSync(of);
  }
  return entries.size;
}
