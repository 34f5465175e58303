/**
 * Finding steps in a pod's history: by text (the words the events table shows for a step, its type and
 * seq), and by time (an hh:mm:ss[.mmm] typed in the clock the UI shows). Pure: events in, indexes out.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { describeEvent } from './explain.ts';

/** The text a search matches against: the step's type, its words, its seq. Lower case. */
function stepText(ev: TraceEvent): string {
  return `${ev.type} ${describeEvent(ev)} ${ev.seq}`.toLowerCase();
}

/**
 * The indexes of the steps whose text holds every word of `query` (case-insensitive), in order; none for a
 * blank query. `ok` narrows the steps searched (the chosen kinds).
 */
export function matchSteps(
  events: readonly TraceEvent[],
  query: string,
  ok: (ev: TraceEvent) => boolean = () => true,
): number[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [];
  const out: number[] = [];
  events.forEach((ev, i) => {
    if (!ok(ev)) return;
    const text = stepText(ev);
    if (words.every((w) => text.includes(w))) out.push(i);
  });
  return out;
}

/**
 * The match after (dir 1) or before (dir -1) the step at `from`, wrapping round at the ends as a browser's
 * find does; undefined when there is no match.
 */
export function nextMatch(matches: readonly number[], from: number, dir: 1 | -1): number | undefined {
  if (matches.length === 0) return undefined;
  if (dir === 1) return matches.find((i) => i > from) ?? matches[0];
  for (let k = matches.length - 1; k >= 0; k--) if ((matches[k] as number) < from) return matches[k];
  return matches.at(-1);
}

/**
 * The time an `hh:mm[:ss[.mmm]]` names on the day of `ref` (local time, as the UI's clock prints it), taken
 * as the nearest such time to `ref` (so 23:59:58 read just after midnight is the day before). Null when the
 * text is not a clock time.
 */
export function parseClock(text: string, ref: number, utc = false): number | null {
  const m = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?\s*$/.exec(text);
  if (!m) return null;
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (h > 23 || min > 59 || s > 59) return null;
  const ms = m[4] ? Number(m[4].padEnd(3, '0')) : 0;
  const d = new Date(ref);
  if (utc) d.setUTCHours(h, min, s, ms);
  else d.setHours(h, min, s, ms);
  const day = 86_400_000;
  let t = d.getTime();
  if (t - ref > day / 2) t -= day;
  else if (ref - t > day / 2) t += day;
  return t;
}

/** The index of the last step at or before `time` (the first step when all are later); -1 when empty. */
export function indexAtTime(events: readonly TraceEvent[], time: number): number {
  let lo = 0;
  let hi = events.length - 1;
  let found = events.length > 0 ? 0 : -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((events[mid] as TraceEvent).time <= time) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The index of the first step at or after `time` (the last step when all are earlier); -1 when empty. */
export function indexFromTime(events: readonly TraceEvent[], time: number): number {
  if (events.length === 0) return -1;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((events[mid] as TraceEvent).time < time) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, events.length - 1);
}
