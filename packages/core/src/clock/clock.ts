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
    let live = true;
    const h = setTimeout(
      () => {
        live = false;
        fn();
      },
      Math.max(0, ms / this.speedFactor),
    );
    h.unref?.();
    return {
      stop: () => {
        const was = live;
        live = false;
        clearTimeout(h);
        return was;
      },
    };
  }

  setTicker(ms: number, fn: () => void): Timer {
    let live = true;
    const h = setInterval(fn, Math.max(1, ms / this.speedFactor));
    h.unref?.();
    return {
      stop: () => {
        const was = live;
        live = false;
        clearInterval(h);
        return was;
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}
