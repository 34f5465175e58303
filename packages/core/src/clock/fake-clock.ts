import { type Clock, sleepOn, type Timer } from './clock.ts';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  every?: number;
  live: boolean;
}

/**
 * A clock that moves only when a test says so. `step(ms)` fires every timer due in (now, now+ms] in time
 * order and lets the promise jobs each one schedules run before the next fires, so an async loop driven by
 * this clock behaves as it would in real time, only instantly.
 *
 * Never use from engine code; tests and benchmarks only.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1, 12, 0, 0)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  since(t: number): number {
    return this.t - t;
  }

  setTimer(ms: number, fn: () => void): Timer {
    return this.add(ms, fn, undefined);
  }

  setTicker(ms: number, fn: () => void): Timer {
    return this.add(ms, fn, Math.max(1, ms));
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers still scheduled (tests use it to check loops stopped). */
  get pendingTimers(): number {
    return this.timers.filter((p) => p.live).length;
  }

  /** Time of the next scheduled timer, or undefined. */
  nextTimerAt(): number | undefined {
    let best: number | undefined;
    for (const p of this.timers) if (p.live && (best === undefined || p.at < best)) best = p.at;
    return best;
  }

  /** Advances time by ms, firing due timers in order and settling promise jobs after each. */
  async step(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      const next = this.popDue(end);
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      if (next.every !== undefined) {
        next.at += next.every;
        next.seq = this.seq++;
        this.timers.push(next);
      } else {
        next.live = false;
      }
      next.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }

  /** Steps in increments of `tick` until pred() holds or `limit` ms have passed; returns whether it held. */
  async stepUntil(pred: () => boolean, limit: number, tick = 100): Promise<boolean> {
    let waited = 0;
    while (!pred()) {
      if (waited >= limit) return false;
      await this.step(tick);
      waited += tick;
    }
    return true;
  }

  private add(ms: number, fn: () => void, every: number | undefined): Timer {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    if (every !== undefined) p.every = every;
    this.timers.push(p);
    return {
      stop: () => {
        const was = p.live;
        p.live = false;
        return was;
      },
    };
  }

  private popDue(end: number): Pending | undefined {
    this.timers = this.timers.filter((p) => p.live);
    let best = -1;
    for (let i = 0; i < this.timers.length; i++) {
      const p = this.timers[i] as Pending;
      if (p.at > end) continue;
      const b = best >= 0 ? (this.timers[best] as Pending) : undefined;
      if (!b || p.at < b.at || (p.at === b.at && p.seq < b.seq)) best = i;
    }
    if (best < 0) return undefined;
    const [p] = this.timers.splice(best, 1);
    return p;
  }
}

/** Lets queued promise jobs (and the jobs they queue) run. setImmediate runs after the microtask queue drains. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
