/**
 * Puts events back in time order within a window: kubelet stamps are taken on many goroutines (and Windows'
 * clock is coarse), so lines are written a little out of order. Events wait here until the newest time seen is
 * `windowMs` past them, or until `maxEvents` wait; then they leave in (time, arrival) order. An event older than
 * one already released leaves at once, keeping its own time (counted in `late`). Memory: at most maxEvents.
 *
 * The waiting events sit in a ring that grows to the largest window the input needed and is then reused, so an
 * event costs no allocation of its own here (a kubelet log is read at hundreds of thousands of lines a second).
 */
import type { TraceEvent } from '../events/trace.ts';

export class ReorderBuffer<T extends { time: number } = TraceEvent> {
  /** the ring: `count` events from `head`, in order; its length is a power of two */
  private ring: (T | undefined)[] = new Array(1024).fill(undefined);
  private head = 0;
  private count = 0;
  private newest = Number.NEGATIVE_INFINITY;
  private released = Number.NEGATIVE_INFINITY;
  late = 0;

  constructor(
    private readonly out: (ev: T) => void,
    private readonly windowMs = 10_000,
    private readonly maxEvents = 50_000,
  ) {}

  push(ev: T): void {
    if (ev.time < this.released) {
      this.late++;
      this.out(ev);
      return;
    }
    if (this.count === this.ring.length) this.grow();
    const r = this.ring;
    const mask = r.length - 1;
    // mostly in order: search back from the end for the place after the last event not later than this one,
    // moving the later ones up by one
    let i = this.count;
    for (; i > 0; i--) {
      const before = r[(this.head + i - 1) & mask] as T;
      if (before.time <= ev.time) break;
      r[(this.head + i) & mask] = before;
    }
    r[(this.head + i) & mask] = ev;
    this.count++;
    if (ev.time > this.newest) this.newest = ev.time;
    this.release(this.newest - this.windowMs);
  }

  private grow(): void {
    const r = this.ring;
    const next: (T | undefined)[] = new Array(r.length * 2).fill(undefined);
    for (let i = 0; i < this.count; i++) next[i] = r[(this.head + i) & (r.length - 1)];
    this.ring = next;
    this.head = 0;
  }

  private release(upTo: number): void {
    const r = this.ring;
    const mask = r.length - 1;
    while (this.count > 0) {
      const ev = r[this.head] as T;
      if (ev.time > upTo && this.count <= this.maxEvents) break;
      r[this.head] = undefined;
      this.head = (this.head + 1) & mask;
      this.count--;
      this.released = ev.time;
      this.out(ev);
    }
  }

  flush(): void {
    this.release(Number.POSITIVE_INFINITY);
  }
}
