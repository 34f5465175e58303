/** The kubelet log importer: `@syncscope/core/kubelet-log`. See parser.ts for the contract. */

export {
  BLOCK_SLACK_MS,
  blockOrder,
  feedLines,
  feedWhole,
  StampScanner,
  type WholeOptions,
  type WholeRead,
  wholeOrder,
} from './blocks.ts';
export { classify } from './header.ts';
export { DECODE_BYTES } from './lines.ts';
export { type ImportSummary, KubeletLogParser, type ParserOptions } from './parser.ts';
export {
  entryText,
  RawEntries,
  type RawEntry,
  type RawEntrySink,
  rawEntryOf,
  rawEventOf,
} from './raw-entries.ts';
export { OffsetResolver, RawIndex, type RawRange, type RawSink, rangeLines } from './raw-index.ts';
export {
  jsonBytes,
  type RawRecord,
  RecordWriter,
  rawRecordLine,
  readRawRecord,
  readRawRecords,
  recordText,
} from './raw-record.ts';
export { looksReversed, readLinesBackward } from './reverse.ts';
export { StampBytes } from './stamp-bytes.ts';
export { checkZone } from './time.ts';
export { asUtf8, utf16Of } from './utf16.ts';

import type { TraceEvent } from '../events/trace.ts';
import { feedWhole } from './blocks.ts';
import { type ImportSummary, KubeletLogParser, type ParserOptions } from './parser.ts';

/**
 * A whole log already in memory (a paste, a file read whole): all its events, in time order across the blocks it
 * was pasted in (feedWhole), and the summary.
 */
export function importKubeletLog(
  text: string,
  opts: Omit<ParserOptions, 'onEvent'> = {},
): { events: TraceEvent[]; summary: ImportSummary } {
  const events: TraceEvent[] = [];
  const p = new KubeletLogParser({ ...opts, reversed: false, onEvent: (ev) => events.push(ev) });
  const read = feedWhole(text, (t, n) => p.feedLine(t, n), opts);
  const summary = p.end();
  summary.reversed = read.reversed;
  if (read.blocks > 1) summary.blocks = read.blocks;
  return { events, summary };
}
