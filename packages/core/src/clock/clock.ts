/**
 * Time for the engine. Nothing in packages/core reads wall time or schedules work except through a Clock,
 * so tests can run ten minutes of back-off in milliseconds (see FakeClock) and the simulated node can run
 * faster than real time.
 *
 * Times are milliseconds since the Unix epoch (like Date.now()). Durations are milliseconds.
 *
 * PassiveClock is for code that only reads time (status generation, backoff checks); Clock adds scheduling
 * for loops (sync loop tickers, PLEG relist, work-queue polling, StopContainer grace timers).
 */
export interface PassiveClock {
  now(): number;
  since(t: number): number;
}

export interface Timer {
  /** Stops the timer; returns false if it had already fired or been stopped. */
  stop(): boolean;
}

export interface Clock extends PassiveClock {
  /** Calls fn once after ms. */
  setTimer(ms: number, fn: () => void): Timer;
  /** Calls fn every ms, first after ms (a Go time.Ticker). */
  setTicker(ms: number, fn: () => void): Timer;
  /** Resolves after ms; rejects with an AbortError if the signal fires first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function abortError(): Error {
  const e = new Error('aborted');
  e.name = 'AbortError';
  return e;
}

/** Shared sleep on top of setTimer, for both clocks. */
export function sleepOn(clock: Pick<Clock, 'setTimer'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      t.stop();
      reject(abortError());
    };
    const t = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The longest delay setTimeout honours (2^31-1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Where a RealClock stands: now() = baseVirtual + (Date.now() - baseWall) × speed. Two processes on one
 * machine that hold the same state read the same now() (the server and its simulated node do).
 */
export interface RealClockState {
  baseWall: number;
  baseVirtual: number;
  speed: number;
}

/**
 * The real clock, optionally running `speed` times faster than wall time (the simulated node's speed
 * setting). now() is continuous across speed changes.
 */
export class RealClock implements Clock {
  private baseWall = Date.now();
  private baseVirtual = this.baseWall;
  private speedFactor = 1;

  get speed(): number {
    return this.speedFactor;
  }

  get state(): RealClockState {
    return { baseWall: this.baseWall, baseVirtual: this.baseVirtual, speed: this.speedFactor };
  }

  /** Takes another clock's state (timers already armed keep the wall delay they were armed with). */
  setState(s: RealClockState): void {
    if (!(s.speed > 0) || !Number.isFinite(s.baseWall) || !Number.isFinite(s.baseVirtual))
      throw new Error(`bad clock state ${JSON.stringify(s)}`);
    this.baseWall = s.baseWall;
    this.baseVirtual = s.baseVirtual;
    this.speedFactor = s.speed;
  }

  setSpeed(speed: number): void {
    if (!(speed > 0)) throw new Error(`speed must be > 0, got ${speed}`);
    this.baseVirtual = this.now();
    this.baseWall = Date.now();
    this.speedFactor = speed;
  }

  now(): number {
    return this.baseVirtual + (Date.now() - this.baseWall) * this.speedFactor;
  }

  since(t: number): number {
    return this.now() - t;
  }

  setTimer(ms: number, fn: () => void): Timer {
    // Node fires a setTimeout longer than 2^31-1 ms at once; a long virtual delay (a probe period or a grace
    // period near the int32 limit) is armed in steps until its due time on this clock.
    const due = this.now() + Math.max(0, ms);
    let live = true;
    let h: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      const wall = Math.max(0, (due - this.now()) / this.speedFactor);
      h = setTimeout(
        () => {
          if (!live) return;
          if (wall > MAX_TIMEOUT_MS) return arm();
          live = false;
          fn();
        },
        Math.min(wall, MAX_TIMEOUT_MS),
      );
      h.unref?.();
    };
    arm();
    return {
      stop: () => {
        const was = live;
        live = false;
        if (h) clearTimeout(h);
        return was;
      },
    };
  }

  setTicker(ms: number, fn: () => void): Timer {
    let live = true;
    let t: Timer | undefined;
    const tick = () => {
      if (!live) return;
      t = this.setTimer(ms, () => {
        tick();
        fn();
      });
    };
    tick();
    return {
      stop: () => {
        const was = live;
        live = false;
        t?.stop();
        return was;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}
