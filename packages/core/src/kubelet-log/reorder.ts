/**
 * Puts events back in time order within a window: kubelet stamps are taken on many goroutines (and Windows'
 * clock is coarse), so lines are written a little out of order. Events wait here until the newest time seen is
 * `windowMs` past them, or until `maxEvents` wait; then they leave in (time, arrival) order. An event older than
 * one already released leaves at once, keeping its own time (counted in `late`). Memory: at most maxEvents.
 */
import type { TraceEvent } from '../events/trace.ts';

export class ReorderBuffer {
  private buf: TraceEvent[] = [];
  private head = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private released = Number.NEGATIVE_INFINITY;
  late = 0;

  constructor(
    private readonly out: (ev: TraceEvent) => void,
    private readonly windowMs = 10_000,
    private readonly maxEvents = 50_000,
  ) {}

  push(ev: TraceEvent): void {
    if (ev.time < this.released) {
      this.late++;
      this.out(ev);
      return;
    }
    const b = this.buf;
    // mostly in order: search back from the end for the place after the last event not later than this one
    let i = b.length;
    while (i > this.head && (b[i - 1] as TraceEvent).time > ev.time) i--;
    if (i === b.length) b.push(ev);
    else b.splice(i, 0, ev);
    if (ev.time > this.newest) this.newest = ev.time;
    this.release(this.newest - this.windowMs);
  }

  private release(upTo: number): void {
    const b = this.buf;
    while (this.head < b.length) {
      const ev = b[this.head] as TraceEvent;
      if (ev.time > upTo && b.length - this.head <= this.maxEvents) break;
      this.head++;
      this.released = ev.time;
      this.out(ev);
    }
    if (this.head > 4096 && this.head * 2 > b.length) {
      this.buf = b.slice(this.head);
      this.head = 0;
    }
  }

  flush(): void {
    this.release(Number.POSITIVE_INFINITY);
    this.buf = [];
    this.head = 0;
  }
}
