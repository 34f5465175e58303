/**
 * Per-key exponential backoff with the semantics of client-go util/flowcontrol.Backoff, as the kubelet uses
 * it for CrashLoopBackOff (key = container stable key) and image pull backoff (key = `<podUID>_<image>`).
 *
 * Each key holds {backoff, lastUpdate}. `next` doubles the window (capped at max) or re-initialises it when
 * the entry has expired; the `isInBackOff*` predicates compare an event time against the window. Jitter is
 * always 0 here, as in the kubelet. Times are ms on the given clock.
 *
 * Called from pod workers (serially per pod) and from housekeeping (`gc`); all methods are synchronous.
 */
import type { PassiveClock } from '../../../clock/clock.ts';

/** Decides when an entry is stale: reset on the next `next`, dropped by `gc`. */
export type HasExpiredFunc = (eventTime: number, lastUpdate: number, maxDuration: number) => boolean;

interface BackoffEntry {
  backoff: number;
  lastUpdate: number;
}

export class Backoff {
  private readonly perItemBackoff = new Map<string, BackoffEntry>();

  constructor(
    readonly clock: PassiveClock,
    readonly defaultDuration: number,
    readonly maxDuration: number,
    /** default: expired once eventTime − lastUpdate > 2×max */
    private readonly hasExpiredFunc?: HasExpiredFunc,
  ) {}

  /** Current window of key in ms (0 when there is no entry). */
  get(key: string): number {
    return this.perItemBackoff.get(key)?.backoff ?? 0;
  }

  /** Time of the last `next` for key, if any. */
  lastUpdate(key: string): number | undefined {
    return this.perItemBackoff.get(key)?.lastUpdate;
  }

  /** Moves key to the next step: initial when new or expired, else doubled up to max; lastUpdate = now. */
  next(key: string, eventTime: number): void {
    const entry = this.perItemBackoff.get(key);
    const now = this.clock.now();
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) {
      this.perItemBackoff.set(key, { backoff: this.defaultDuration, lastUpdate: now });
      return;
    }
    entry.backoff = Math.min(entry.backoff * 2, this.maxDuration);
    entry.lastUpdate = now;
  }

  reset(key: string): void {
    this.perItemBackoff.delete(key);
  }

  /** True while now − eventTime is inside the window (the crash-loop check, eventTime = FinishedAt). */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const entry = this.perItemBackoff.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) return false;
    return this.clock.since(eventTime) < entry.backoff;
  }

  /** True while eventTime − lastUpdate is inside the window (the image-pull check, eventTime = now). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.perItemBackoff.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) return false;
    return eventTime - entry.lastUpdate < entry.backoff;
  }

  /** Drops the entries that have expired as of now. */
  gc(): number {
    const now = this.clock.now();
    let dropped = 0;
    for (const [key, entry] of this.perItemBackoff) {
      if (this.hasExpired(now, entry.lastUpdate)) {
        this.perItemBackoff.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.perItemBackoff.size;
  }

  private hasExpired(eventTime: number, lastUpdate: number): boolean {
    if (this.hasExpiredFunc) return this.hasExpiredFunc(eventTime, lastUpdate, this.maxDuration);
    return eventTime - lastUpdate > this.maxDuration * 2;
  }
}

/** The kubelet's v1.32 crash-loop expiry: reset once the failure is more than `resetMs` after the last update. */
export function expireAfter(resetMs: number): HasExpiredFunc {
  return (eventTime, lastUpdate) => eventTime - lastUpdate > resetMs;
}
