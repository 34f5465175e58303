/**
 * Channel: a Go channel for a single-threaded event loop. The sync loop selects over several of them
 * (config updates, PLEG events, the sync and housekeeping tickers); producers never block on them unless they
 * ask to (`send` on a full bounded channel).
 *
 *   trySend(v)     non-blocking send; false when full or closed (the PLEG then drops + counts, a ticker skips)
 *   send(v)        waits for room (bounded channels only), like `ch <- v`
 *   tryReceive()   takes the oldest value if there is one
 *   receive()      waits for a value; undefined once the channel is closed and drained
 *   whenReady()    resolves when a value is waiting or the channel is closed (the `select` building block)
 *
 * capacity = Infinity gives an unbounded channel (the config source's updates, which must never be lost).
 */
export class Channel<T> {
  private buf: T[] = [];
  private closedFlag = false;
  private readers = new Set<() => void>();
  private writers: (() => void)[] = [];

  constructor(readonly capacity = Number.POSITIVE_INFINITY) {}

  get length(): number {
    return this.buf.length;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** A value is waiting (a select on this channel would not block). */
  get ready(): boolean {
    return this.buf.length > 0 || this.closedFlag;
  }

  trySend(v: T): boolean {
    if (this.closedFlag || this.buf.length >= this.capacity) return false;
    this.buf.push(v);
    for (const fn of [...this.readers]) fn();
    return true;
  }

  async send(v: T): Promise<void> {
    while (!this.trySend(v)) {
      if (this.closedFlag) throw new Error('send on closed channel');
      await new Promise<void>((r) => this.writers.push(r));
    }
  }

  tryReceive(): { value: T } | undefined {
    if (this.buf.length === 0) return undefined;
    const value = this.buf.shift() as T;
    this.wake(this.writers);
    return { value };
  }

  async receive(): Promise<T | undefined> {
    for (;;) {
      const got = this.tryReceive();
      if (got) return got.value;
      if (this.closedFlag) return undefined;
      await this.whenReady();
    }
  }

  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise<void>((r) => {
      const off = this.onReady(() => {
        off();
        r();
      });
    });
  }

  /** Calls fn (possibly many times) whenever a value arrives or the channel closes; returns the unsubscribe. */
  onReady(fn: () => void): () => void {
    this.readers.add(fn);
    return () => this.readers.delete(fn);
  }

  close(): void {
    this.closedFlag = true;
    for (const fn of [...this.readers]) fn();
    this.wake(this.writers);
  }

  private wake(list: (() => void)[]): void {
    const all = list.splice(0);
    for (const fn of all) fn();
  }
}

/**
 * Waits until at least one channel is ready (or the signal aborts) and returns the indexes of all ready
 * channels; the caller picks one at random, as Go's select does when several cases are ready.
 */
export async function selectReady(
  channels: readonly Channel<unknown>[],
  signal?: AbortSignal,
): Promise<number[]> {
  for (;;) {
    const ready = channels.flatMap((c, i) => (c.ready ? [i] : []));
    if (ready.length > 0 || signal?.aborted) return ready;
    await new Promise<void>((resolve) => {
      const offs: (() => void)[] = [];
      const done = () => {
        for (const off of offs) off();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      for (const c of channels) offs.push(c.onReady(done));
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
