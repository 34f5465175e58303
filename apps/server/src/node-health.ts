/**
 * The node's health judged on the server, where the loops run: when the sync loop, the PLEG relist and
 * housekeeping last beat (engine and wall time), each one's period, and whether it is stalled by its rule:
 *   - PLEG: GenericPLEG.Healthy(): stalled once the last relist is older than the relist threshold (3 min
 *     generic, 10 min evented); the engine's own verdict (NodeInfo.pleg) is the one reported;
 *   - sync loop and housekeeping: silent for more than twice the period (the 1 s sync ticker, or the
 *     back-off a skipped turn waits; the 2 s housekeeping ticker). The kubelet has no check of its own on
 *     housekeeping; on the loop its /healthz check (syncLoopHealthCheck) fails only after
 *     max(2 × resync interval, 5 min) without an iteration, reported beside it as `syncLoopHealthz`.
 *
 * BeatTracker follows the trace (its listener is called as each event is recorded, so the wall time it
 * keeps is the beat's own); judgeNodeHealth is pure.
 */
import type { BeatName, EventLoopLag, NodeHealth, ServerBeat } from '@syncscope/core/api/node-health';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import type { TraceSource } from './context.ts';

/** A loop turn or housekeeping run later than this many periods is stalled. */
const STALL_PERIODS = 2;
/** The floor of the kubelet's sync-loop /healthz threshold (server.go syncLoopHealthCheck). */
const SYNC_LOOP_HEALTHZ_MIN_MS = 5 * 60_000;
/** How far back the tracker looks in the trace held at its start for the newest beats. */
const SEED_EVENTS = 5_000;

/** The newest time of one beat, on the engine clock and on the server's wall clock. */
interface BeatTime {
  engine: number;
  wall: number;
}

export interface TrackedBeats {
  loop: BeatTime | null;
  /** the back-off the newest loop beat waits when it was a skipped turn (runtime not ready), else 0 */
  loopBackoffMs: number;
  relist: BeatTime | null;
  housekeeping: BeatTime | null;
}

/** Follows the trace for the newest beat of each kind. */
export class BeatTracker {
  readonly beats: TrackedBeats = { loop: null, loopBackoffMs: 0, relist: null, housekeeping: null };
  private readonly unsubscribe: () => void;

  /** `wallNow` and `engineNow` date the beats found in the trace held at start (before the listener). */
  constructor(trace: TraceSource, engineNow: () => number, wallNow: () => number = Date.now) {
    const held = trace.since(Math.max(0, trace.next - 1 - SEED_EVENTS));
    const offset = wallNow() - engineNow();
    for (const ev of held) this.see(ev, ev.time + offset);
    this.unsubscribe = trace.subscribe((ev) => this.see(ev, wallNow()), 'the node health tracker');
  }

  stop(): void {
    this.unsubscribe();
  }

  private see(ev: TraceEvent, wall: number): void {
    const t = { engine: ev.time, wall };
    if (ev.type === 'loop.iteration') {
      this.beats.loop = t;
      this.beats.loopBackoffMs = 0;
    } else if (ev.type === 'loop.skipped') {
      this.beats.loop = t;
      this.beats.loopBackoffMs = ev.backoffMs;
    } else if (ev.type === 'pleg.relist') this.beats.relist = t;
    else if (ev.type === 'housekeeping') this.beats.housekeeping = t;
  }
}

/** One beat judged at engine time `now`; `since` is when silence began counting before the first beat. */
export function judgeBeat(
  last: BeatTime | null,
  periodMs: number,
  thresholdMs: number,
  now: number,
  since: number,
): ServerBeat {
  const silentMs = Math.max(0, now - (last?.engine ?? since));
  return {
    last: last?.engine ?? null,
    lastWall: last?.wall ?? null,
    periodMs,
    silentMs,
    stalled: last !== null && silentMs > thresholdMs,
    thresholdMs,
  };
}

/** The newer of a tracked beat and a time the engine itself reports (dated on the wall by `toWall`). */
function newer(t: BeatTime | null, engine: number | null, toWall: (e: number) => number): BeatTime | null {
  if (engine === null || (t !== null && t.engine >= engine)) return t;
  return { engine, wall: toWall(engine) };
}

/**
 * The health answer at this moment: `info` is the engine's NodeInfo (its clock, configuration, PLEG
 * verdict and last iteration), `beats` what the tracker saw, `startedAt` the engine time the server started
 * watching (silence before a first beat counts from there).
 */
export function judgeNodeHealth(
  info: NodeInfo,
  beats: TrackedBeats,
  eventLoop: EventLoopLag,
  wallNow: number,
  startedAt: number,
): NodeHealth {
  const cfg = info.configuration;
  const now = info.clock.now;
  const speed = info.clock.speed > 0 ? info.clock.speed : 1;
  const toWall = (e: number) => Math.round(wallNow - (now - e) / speed);
  const evented = info.pleg.mode === 'evented';
  const relistPeriod = evented ? cfg.eventedPlegRelistPeriodMs : cfg.genericPlegRelistPeriodMs;
  const relistThreshold = evented ? cfg.eventedPlegRelistThresholdMs : cfg.genericPlegRelistThresholdMs;
  const relist = judgeBeat(
    newer(beats.relist, info.pleg.lastRelist, toWall),
    relistPeriod,
    relistThreshold,
    now,
    startedAt,
  );
  // the PLEG's verdict is Healthy()'s, as the engine gives it (a relist that never succeeded is not a stall)
  relist.stalled = relist.last !== null && !info.pleg.healthy;
  const observing = info.observing !== undefined;
  const loopPeriod = Math.max(cfg.syncTickerMs, beats.loopBackoffMs);
  const loop = judgeBeat(
    newer(beats.loop, info.sync.lastIteration, toWall),
    loopPeriod,
    STALL_PERIODS * loopPeriod,
    now,
    startedAt,
  );
  const housekeeping = judgeBeat(
    beats.housekeeping,
    cfg.housekeepingPeriodMs,
    STALL_PERIODS * cfg.housekeepingPeriodMs,
    now,
    startedAt,
  );
  // the kubelet's check counts from the last iteration entered: a skipped turn (runtime not ready) is none
  const healthzMs = Math.max(2 * cfg.syncFrequencyMs, SYNC_LOOP_HEALTHZ_MIN_MS);
  const lastIteration = info.sync.lastIteration;
  const healthzOk = lastIteration === null || now - lastIteration <= healthzMs;
  return {
    at: now,
    atWall: wallNow,
    beats: {
      loop: observing ? null : loop,
      relist,
      housekeeping: observing ? null : housekeeping,
    } satisfies Record<BeatName, ServerBeat | null>,
    syncLoopHealthz: observing
      ? null
      : {
          thresholdMs: healthzMs,
          ok: healthzOk,
          message: healthzOk ? '' : 'sync Loop took longer than expected',
        },
    eventLoop,
  };
}
