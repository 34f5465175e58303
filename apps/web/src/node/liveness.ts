/**
 * What the node page knows about its three heartbeats: sync-loop iterations, PLEG relists and housekeeping
 * runs. Each beats on a period (the 1 s sync ticker, the relist period, the 2 s housekeeping ticker); one
 * that has not beaten for more than twice its period is stalled, which is how a stuck kubelet looks from
 * outside. Pure: the panels call lastBeats on the recent trace and beatState on each tick of the clock.
 */
import type { KubeletConfiguration, NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';

/** A beat later than this many periods is stalled. */
const STALL_PERIODS = 2;

export type BeatName = 'loop' | 'relist' | 'housekeeping';

export interface Beat {
  /** engine time of the newest beat seen, or null when none was */
  last: number | null;
  /** how long the next one may take before it is late (a skipped iteration waits its back-off) */
  periodMs: number;
}

export type BeatState =
  | { state: 'none' }
  | { state: 'live'; last: number }
  | { state: 'stalled'; last: number; silentMs: number };

type RuntimeState = Extract<TraceEvent, { type: 'runtime.state' }>;

/**
 * the newest time of each beat in a trace, the back-off of a newest loop beat that was a skip, and the newest
 * runtime state (the health panel's, found on the same walk)
 */
interface NewestBeats {
  loop: number | null;
  skipBackoffMs: number;
  relist: number | null;
  housekeeping: number | null;
  runtime: RuntimeState | null;
}

/**
 * A trace's newest beats and runtime state (walking back from the newest event, stopping once all four are
 * found), found once per events array: a state's `events` never changes, and the node page's
 * three panels ask for the same trace's beats. A trace without one of the four (a kubelet log has no relist,
 * housekeeping or runtime state; a live trace records a runtime state only when it changes) is walked whole,
 * so asking once instead of once per panel matters for a large replay.
 */
const newestCache = new WeakMap<readonly TraceEvent[], NewestBeats>();

function newestBeats(events: readonly TraceEvent[]): NewestBeats {
  const cached = newestCache.get(events);
  if (cached) return cached;
  const b: NewestBeats = { loop: null, skipBackoffMs: 0, relist: null, housekeeping: null, runtime: null };
  for (let i = events.length - 1; i >= 0; i--) {
    if (b.loop !== null && b.relist !== null && b.housekeeping !== null && b.runtime !== null) break;
    const ev = events[i] as TraceEvent;
    if (b.loop === null && ev.type === 'loop.iteration') b.loop = ev.time;
    else if (b.loop === null && ev.type === 'loop.skipped') {
      b.loop = ev.time;
      b.skipBackoffMs = ev.backoffMs;
    } else if (b.relist === null && ev.type === 'pleg.relist') b.relist = ev.time;
    else if (b.housekeeping === null && ev.type === 'housekeeping') b.housekeeping = ev.time;
    else if (b.runtime === null && ev.type === 'runtime.state') b.runtime = ev;
  }
  newestCache.set(events, b);
  return b;
}

/** The newest runtime state and relist in `events` (ascending seq): the beats' walk, once per events array. */
export function newestRuntime(events: readonly TraceEvent[]): { runtime?: RuntimeState; relist?: number } {
  const b = newestBeats(events);
  return { runtime: b.runtime ?? undefined, relist: b.relist ?? undefined };
}

/**
 * The newest loop beat (an iteration, or a skip while the runtime is down: the loop still turns), relist
 * and housekeeping run in `events` (ascending seq), with the period each may take. The walk is newestBeats':
 * back from the newest event until all three are found, once per events array.
 */
export function lastBeats(
  events: readonly TraceEvent[],
  config: KubeletConfiguration,
  node: NodeInfo | undefined,
): Record<BeatName, Beat> {
  const b = newestBeats(events);
  const loopPeriod = Math.max(config.syncTickerMs, b.skipBackoffMs);
  let relist = b.relist;
  const polled = node?.pleg.lastRelist ?? null;
  if (polled !== null && (relist === null || polled > relist)) relist = polled;
  const relistPeriod =
    node?.pleg.mode === 'evented' ? config.eventedPlegRelistPeriodMs : config.genericPlegRelistPeriodMs;
  return {
    loop: { last: b.loop, periodMs: loopPeriod },
    relist: { last: relist, periodMs: relistPeriod },
    housekeeping: { last: b.housekeeping, periodMs: config.housekeepingPeriodMs },
  };
}

export function beatState(beat: Beat, now: number): BeatState {
  if (beat.last === null) return { state: 'none' };
  const silentMs = now - beat.last;
  if (silentMs > STALL_PERIODS * beat.periodMs) return { state: 'stalled', last: beat.last, silentMs };
  return { state: 'live', last: beat.last };
}

/** hh:mm:ss in the browser's time zone, as the page prints every clock time. */
export function clockText(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

const BEAT_WORDS: Record<BeatName, { noun: string; none: string }> = {
  loop: { noun: 'sync loop iteration', none: 'no sync loop iteration seen yet' },
  relist: { noun: 'PLEG relist', none: 'no relist seen yet' },
  housekeeping: { noun: 'housekeeping run', none: 'no housekeeping run seen yet' },
};

/** "no sync loop iteration for 12s (last at 16:55:02)": what a stalled beat's chip and line say */
export function stalledText(name: BeatName, s: Extract<BeatState, { state: 'stalled' }>): string {
  const secs = Math.round(s.silentMs / 1000);
  return `no ${BEAT_WORDS[name].noun} for ${secs}s (last at ${clockText(s.last)})`;
}

/**
 * What a heartbeat panel says of itself, most telling first: a replay is a replay, a page whose server is gone
 * is stale, then loading until its data came, empty before the first beat, stalled (with the words) or live.
 */
export function beatPanelState(
  name: BeatName,
  s: BeatState,
  opts: { replay: boolean; staleSince: number | null; loaded: boolean },
): { state: 'replay' | 'stale' | 'loading' | 'empty' | 'stalled' | 'live'; detail?: string } {
  if (opts.replay) return { state: 'replay' };
  if (opts.staleSince !== null) return { state: 'stale' };
  if (!opts.loaded) return { state: 'loading' };
  if (s.state === 'none') return { state: 'empty' };
  if (s.state === 'stalled') return { state: 'stalled', detail: stalledText(name, s) };
  return { state: 'live' };
}
