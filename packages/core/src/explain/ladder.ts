/**
 * The model's crash-loop back-off for one container, as kuberuntime's doBackOff drives client-go's
 * flowcontrol.Backoff (key: the container; event time: the dead instance's finish):
 *
 *   sync meets an exited instance   in back-off when an entry exists, is not expired (death − lastUpdate ≤
 *                                   reset) and now − death < entry → refused: "back-off <entry>"
 *   else                            Next: a new or expired entry is the initial delay, else it doubles up
 *                                   to the max; lastUpdate = now; the container starts
 *
 * So the first death restarts at once (no entry yet) and creates the 10 s entry; the second waits 10 s.
 * A container never seen dying before (the trace starts mid-life) has an entry the trace does not hold: the
 * first window the source shows is taken as the entry, which is said as an assumption.
 * Browser-safe: no Node imports.
 */
import type { ExplainParams } from './params.ts';

export interface BackoffEntry {
  backoffMs: number;
  lastUpdate: number;
}

/** What the rule says about one death: restart at once, or wait `delayMs` from the death. */
export type DeathReading =
  | { kind: 'immediate'; why: 'no-entry' | 'expired' | 'killed'; sinceUpdateMs?: number }
  | { kind: 'backoff'; delayMs: number; until: number };

export class ContainerLadder {
  entry: BackoffEntry | undefined;
  /** the entry was taken from the source (the trace began after the ladder did) */
  assumed = false;
  /** the newest death and what the rule said about it */
  death: { time: number; seq: number; reading: DeathReading } | undefined;
  /** failed syncs that met the current window (their times) */
  lastSync: number | undefined;
  /** windows the source showed so far, the newest one's end (as the source gives it) and the rule's delay */
  rungs = 0;
  windowUntil: number | undefined;
  windowSeen: number | undefined;

  constructor(private readonly p: ExplainParams) {}

  private expired(eventTime: number): boolean {
    return !this.entry || eventTime - this.entry.lastUpdate > this.p.resetMs;
  }

  /**
   * A death at `time`: what the next sync does with it. `killed`: the sync that killed it (a failed probe, a
   * changed spec) starts it again from the status it read, where it still ran: no back-off, no Next.
   */
  died(time: number, seq: number, killed = false): DeathReading {
    const e = this.entry;
    let reading: DeathReading;
    if (killed) reading = { kind: 'immediate', why: 'killed' };
    else if (!e) reading = { kind: 'immediate', why: 'no-entry' };
    else if (this.expired(time))
      reading = { kind: 'immediate', why: 'expired', sinceUpdateMs: time - e.lastUpdate };
    else reading = { kind: 'backoff', delayMs: e.backoffMs, until: time + e.backoffMs };
    this.death = { time, seq, reading };
    this.lastSync = undefined;
    return reading;
  }

  /** A start at `time` after the death (or the first start): Next(key) when it restarts a dead instance. */
  started(time: number, restart: boolean): void {
    if (restart && !(this.death?.reading.kind === 'immediate' && this.death.reading.why === 'killed')) {
      const deathTime = this.death?.time ?? time;
      if (!this.entry || this.expired(deathTime))
        this.entry = { backoffMs: this.p.initialBackOffMs, lastUpdate: time };
      else {
        this.entry.backoffMs = Math.min(this.entry.backoffMs * 2, this.p.maxBackOffMs);
        this.entry.lastUpdate = time;
      }
    }
    this.death = undefined;
    this.lastSync = undefined;
  }

  /** The source shows a window the model has no entry for, at the trace's start: take it as the entry. */
  assume(delayMs: number, deathTime: number, seq: number): DeathReading {
    this.entry = { backoffMs: delayMs, lastUpdate: deathTime };
    this.assumed = true;
    const reading: DeathReading = { kind: 'backoff', delayMs, until: deathTime + delayMs };
    this.death = { time: deathTime, seq, reading };
    return reading;
  }

  /** Whether `delayMs` is a rung of this ladder (initial × 2^k, or the max). */
  isRung(delayMs: number): boolean {
    if (delayMs === this.p.maxBackOffMs) return true;
    for (let d = this.p.initialBackOffMs; d < this.p.maxBackOffMs; d *= 2) if (d === delayMs) return true;
    return false;
  }
}
