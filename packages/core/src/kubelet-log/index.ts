/** The kubelet log importer: `@syncscope/core/kubelet-log`. See parser.ts for the contract. */

export { DECODE_BYTES } from './lines.ts';
export { type ImportSummary, KubeletLogParser, type ParserOptions } from './parser.ts';
export { looksReversed, readLinesBackward } from './reverse.ts';
export { checkZone } from './time.ts';
export { asUtf8, utf16Of } from './utf16.ts';

import type { TraceEvent } from '../events/trace.ts';
import { type ImportSummary, KubeletLogParser, type ParserOptions } from './parser.ts';

/** A whole log already in memory (tests, small pastes): all its events and the summary. */
export function importKubeletLog(
  text: string,
  opts: Omit<ParserOptions, 'onEvent'> = {},
): { events: TraceEvent[]; summary: ImportSummary } {
  const events: TraceEvent[] = [];
  const p = new KubeletLogParser({ ...opts, onEvent: (ev) => events.push(ev) });
  p.feed(text);
  return { events, summary: p.end() };
}
