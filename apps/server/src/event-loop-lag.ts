/**
 * The server's own event-loop lag (perf_hooks monitorEventLoopDelay): the engine, the HTTP routes and the
 * streams share this one thread, so a lagging loop delays the kubelet's beats and the answers alike. Read
 * over windows of WINDOW_MS: `read()` gives the last complete window, or the current one before the first
 * has ended.
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { EventLoopLag } from '@syncscope/core/api/node-health';

const WINDOW_MS = 5_000;
const RESOLUTION_MS = 20;
/** a sample is the whole wait of a RESOLUTION_MS timer: the lag is what it took beyond that */
const lagMs = (ns: number) =>
  Math.max(0, Math.round(((Number.isFinite(ns) ? ns : 0) / 1e6 - RESOLUTION_MS) * 100) / 100);

export class EventLoopLagMonitor {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly timer: NodeJS.Timeout;
  private last: EventLoopLag | null = null;

  constructor() {
    this.histogram.enable();
    this.timer = setInterval(() => {
      this.last = this.current();
      this.histogram.reset();
    }, WINDOW_MS);
    this.timer.unref();
  }

  read(): EventLoopLag {
    return this.last ?? this.current();
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  /** an empty window (none of the timer's turns came yet) reads as no lag */
  private current(): EventLoopLag {
    const h = this.histogram;
    const empty = h.count === 0;
    return {
      meanMs: empty ? 0 : lagMs(h.mean),
      p99Ms: empty ? 0 : lagMs(h.percentile(99)),
      maxMs: empty ? 0 : lagMs(h.max),
      windowMs: WINDOW_MS,
    };
  }
}
