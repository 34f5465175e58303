/**
 * Helpers of the importer's tests that write klog lines by hand: `k` makes a bare klog text line a second after
 * the one before (or at a given second), `run` imports lines, `of` picks the events of one type, `counted` adds
 * up what a summary says of each line.
 */
import type { TraceEvent, TraceOf, TraceType } from '../events/trace.ts';
import { type ImportSummary, importKubeletLog } from './index.ts';

/** the second of the last line k made (a live binding: a line at the same second passes it back) */
export let sec = 0;
/** a bare klog text line, one second after the one before unless a time is given */
export function k(msg: string, at?: number, level = 'I'): string {
  sec = at ?? sec + 1;
  const h = String(10 + Math.floor(sec / 3600)).padStart(2, '0');
  const m = String(Math.floor((sec % 3600) / 60)).padStart(2, '0');
  const s = String(sec % 60).padStart(2, '0');
  return `${level}0601 ${h}:${m}:${s}.000000    42 x.go:1] ${msg}`;
}
export const run = (lines: string[]) => importKubeletLog(lines.join('\n'), { year: 2024 });
export function of<T extends TraceType>(events: TraceEvent[], type: T): TraceOf<T>[] {
  return events.filter((e): e is TraceOf<T> => e.type === type);
}

/** every line read is counted once: understood, another program's, raw, blank or too long */
export const counted = (s: ImportSummary): number => s.understood + s.other + s.raw + s.blank + s.tooLong;
