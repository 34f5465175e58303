/**
 * What the node page knows about its three heartbeats: sync-loop iterations, PLEG relists and housekeeping
 * runs. Live, whether one is stalled is the server's word (GET /api/v1/node's `health`, judged where the
 * loops run): the page only says whether that word is fresh, late (the page or the network is behind) or
 * gone (the stream is lost: stale). lastBeats finds the newest beats in a trace, for what the panels draw
 * (a replay has no server to ask). Pure: the panels call these on each tick of the clock.
 */
import type { BeatName, ServerBeat } from '@syncscope/core/api/node-health';
import type { KubeletConfiguration, NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { LATE_AFTER_MS, type ServerWord } from './server-word.ts';

export type { BeatName } from '@syncscope/core/api/node-health';

export interface Beat {
  /** engine time of the newest beat seen, or null when none was */
  last: number | null;
  /** how long the next one may take before it is late (a skipped iteration waits its back-off) */
  periodMs: number;
}

/** the newest time of each beat in a trace, and the back-off of a newest loop beat that was a skip */
interface NewestBeats {
  loop: number | null;
  skipBackoffMs: number;
  relist: number | null;
  housekeeping: number | null;
}

/**
 * A trace's newest beats (walking back from the newest event, stopping once all three are found), found once
 * per events array: a state's `events` never changes, and the node page's panels ask for the same trace's
 * beats. A trace without one of the three (a kubelet log has no relist or housekeeping) is walked whole, so
 * asking once instead of once per panel matters for a large replay.
 */
const newestCache = new WeakMap<readonly TraceEvent[], NewestBeats>();

function newestBeats(events: readonly TraceEvent[]): NewestBeats {
  const cached = newestCache.get(events);
  if (cached) return cached;
  const b: NewestBeats = { loop: null, skipBackoffMs: 0, relist: null, housekeeping: null };
  for (let i = events.length - 1; i >= 0; i--) {
    if (b.loop !== null && b.relist !== null && b.housekeeping !== null) break;
    const ev = events[i] as TraceEvent;
    if (b.loop === null && ev.type === 'loop.iteration') b.loop = ev.time;
    else if (b.loop === null && ev.type === 'loop.skipped') {
      b.loop = ev.time;
      b.skipBackoffMs = ev.backoffMs;
    } else if (b.relist === null && ev.type === 'pleg.relist') b.relist = ev.time;
    else if (b.housekeeping === null && ev.type === 'housekeeping') b.housekeeping = ev.time;
  }
  newestCache.set(events, b);
  return b;
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
export function stalledText(name: BeatName, s: { last: number; silentMs: number }): string {
  const secs = Math.round(s.silentMs / 1000);
  return `no ${BEAT_WORDS[name].noun} for ${secs}s (last at ${clockText(s.last)})`;
}

/** How long ago the server's answer came (the page's wall clock, stopped at `staleSince` once stale). */
export function wordAgeMs(word: ServerWord, wallNow: number, staleSince: number | null): number {
  return Math.max(0, (staleSince ?? wallNow) - word.receivedAt);
}

/** A beat as the server judged it, its silence carried forward by the time since the answer came. */
export function silentNow(
  beat: ServerBeat,
  word: ServerWord,
  wallNow: number,
  staleSince: number | null,
): number {
  return beat.silentMs + wordAgeMs(word, wallNow, staleSince) * (word.speed > 0 ? word.speed : 1);
}

export type PanelStateOf = 'replay' | 'stale' | 'loading' | 'behind' | 'empty' | 'stalled' | 'live';

/**
 * What a heartbeat panel says of itself, most telling first: a replay is a replay, a page whose stream is
 * gone is stale, then loading until the server's first word, behind while that word is late, empty before
 * the first beat, stalled when the server says so (with the words) or live.
 */
export function beatPanelState(
  name: BeatName,
  word: ServerWord | null,
  opts: { replay: boolean; staleSince: number | null; loaded: boolean; wallNow: number },
): { state: PanelStateOf; detail?: string } {
  if (opts.replay) return { state: 'replay' };
  if (opts.staleSince !== null) return { state: 'stale' };
  if (!opts.loaded || word === null) return { state: 'loading' };
  if (wordAgeMs(word, opts.wallNow, null) > LATE_AFTER_MS) return { state: 'behind' };
  const beat = word.health.beats[name];
  if (!beat || beat.last === null) return { state: 'empty' };
  if (beat.stalled) {
    const silentMs = silentNow(beat, word, opts.wallNow, null);
    return { state: 'stalled', detail: stalledText(name, { last: beat.last, silentMs }) };
  }
  return { state: 'live' };
}
