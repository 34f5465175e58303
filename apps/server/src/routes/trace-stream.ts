/**
 * WebSocket /api/v1/trace/stream?since=<seq>[&podUID=<uid>]: the trace live. Messages (JSON text frames):
 *   {kind: 'events', events: TraceEvent[]}   seq strictly increasing across messages, no gaps within a
 *                                            run (after a crash the next run starts above a reserved block)
 *   {kind: 'resync', reason}                 the client fell behind; the server closes the socket next.
 *                                            Reload state over REST and reconnect with a fresh ?since=.
 *
 * First the backlog with seq > since (all the trace holds when since is 0), then live events, batched: a
 * batch leaves after FLUSH_MS or as soon as BATCH_EVENTS are waiting.
 *
 * With ?podUID= only that pod's events are sent, with the node-wide ones that belong on every pod's
 * timeline (`server.start`, `sim.fault`): what a pod page needs, at that pod's rate and not the node's. Such
 * a client reads the trace itself (filtered pages are its own, not the pump's shared ones), its cursor
 * moving over the events it skips. A value that is not a UID's spelling is a 400 naming `podUID`.
 *
 * Pacing: a client holds no queue of its own. It keeps a cursor (the last seq sent) and reads forward from
 * the trace a page (BATCH_EVENTS) at a time, only while its socket's bufferedAmount is under
 * SEND_WATER_BYTES; above it the client is parked until a write completes with the buffer back under the
 * mark. Who writes when is decided by the server's one StreamPump (stream-pump.ts): a bounded amount of
 * work per event-loop turn across all clients, so a crowd of new clients cannot starve other requests.
 *
 * Resync: when the trace has dropped events the client has not been sent, when bufferedAmount passes
 * HIGH_WATER_BYTES, or when it is more than MAX_LAG_EVENTS behind and, parked, has seen no write complete for
 * STALL_MS. A resynced client is closed, and terminated if it does not finish the close handshake within
 * TERMINATE_MS; its cursor, timers and subscription go with it.
 *
 * Caps: at most `maxStreams` streams at once, `maxStreamsPerAddress` from one client address. Past either
 * the WebSocket is accepted and closed at once with 1013 (Try Again Later), the reason naming the cap.
 *
 * Access: the Origin must be the page this server served (no Origin: a non-browser client); with a token,
 * the access hook wants it (header, or the bearer subprotocol) before the upgrade.
 */

import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import type { TraceSource } from '../context.ts';
import { BATCH_EVENTS, type Pumped, StreamPump } from './stream-pump.ts';
import { type EventFilter, podStreamFilter, streamQuery } from './trace-stream-query.ts';
import { StreamCaps, streamRoute } from './ws-stream-route.ts';

const FLUSH_MS = 50;
const SEND_WATER_BYTES = 256 * 1024;
const HIGH_WATER_BYTES = 8 * 1024 * 1024;
const MAX_LAG_EVENTS = 10_000;
const STALL_MS = 15_000;
const CLOSE_RESYNC = 4000;
const TERMINATE_MS = 5_000;
export const MAX_STREAMS = 256;
export const MAX_STREAMS_PER_ADDRESS = 32;

export type StreamMessage = { kind: 'events'; events: TraceEvent[] } | { kind: 'resync'; reason: string };

export interface TraceStreamOptions {
  /** Streams open at once (default MAX_STREAMS). */
  maxStreams?: number;
  /** Streams open at once from one client address (default MAX_STREAMS_PER_ADDRESS). */
  maxStreamsPerAddress?: number;
}

/** One subscriber: a cursor into the trace, driven by the pump. */
class StreamClient implements Pumped {
  private timer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** Waiting for the socket to drain below SEND_WATER_BYTES. */
  private parked = false;
  /** When the socket last completed a write (or the client was parked, if later). */
  private progressAt = 0;
  /** A filtered page being read from the journal. */
  private reading = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly trace: TraceSource,
    private readonly pump: StreamPump,
    private cursor: number,
    private readonly filter?: EventFilter,
  ) {}

  start(): void {
    this.socket.on('close', () => this.stop());
    this.socket.on('error', () => this.stop());
    if (this.cursor > 0 && this.trace.oldest > this.cursor + 1) {
      this.resync(`events ${this.cursor + 1}..${this.trace.oldest - 1} are no longer held`);
      return;
    }
    this.unsubscribe = this.trace.subscribe((ev) => this.onEvent(ev), 'the trace stream');
    this.wake();
  }

  private onEvent(ev: TraceEvent): void {
    if (this.closed) return;
    if (this.parked) {
      // a parked client is not pumped: whether it lost events is found out here
      if (this.dropped()) this.resync(this.droppedReason());
      return;
    }
    if (ev.seq - this.cursor >= BATCH_EVENTS) this.wake();
    else this.timer ??= setTimeout(() => this.wake(), FLUSH_MS);
  }

  private wake(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.closed && !this.parked) this.pump.wake(this);
  }

  pumpOnce(): boolean {
    if (this.closed || this.parked) return false;
    if (this.dropped()) {
      this.resync(this.droppedReason());
      return false;
    }
    if (this.filter) return this.pumpFiltered(this.filter);
    const page = this.pump.page(this.cursor, this);
    if (!page) return false;
    this.socket.send(page.data, { binary: false }, () => this.written());
    this.cursor = page.last;
    return this.afterSend();
  }

  /**
   * Sends the next events after the cursor that pass the filter (at most BATCH_EVENTS), read from the ring,
   * or from the journal off the event loop (the client is woken when they are in). The cursor moves to
   * the last event read, or to the head the read started from when fewer than a page passed.
   */
  private pumpFiltered(filter: EventFilter): boolean {
    if (this.reading) return false;
    const head = this.trace.next - 1;
    if (head <= this.cursor) return false;
    if (!this.trace.ringCovers(this.cursor)) {
      this.reading = true;
      this.trace.sinceAsync(this.cursor, filter, BATCH_EVENTS).then(
        (events) => {
          this.reading = false;
          if (this.closed) return;
          if (this.sendFiltered(events, head)) this.wake();
        },
        () => {
          this.reading = false;
          this.resync(`events after seq ${this.cursor} could not be read`);
        },
      );
      return false;
    }
    return this.sendFiltered(this.trace.since(this.cursor, filter, BATCH_EVENTS), head);
  }

  /** Sends a filtered page read up to `head`; true if the client could go on at once. */
  private sendFiltered(events: TraceEvent[], head: number): boolean {
    const last = events[events.length - 1]?.seq ?? 0;
    this.cursor = events.length >= BATCH_EVENTS ? last : Math.max(head, last, this.cursor);
    if (events.length === 0) return this.trace.next - 1 > this.cursor;
    this.socket.send(JSON.stringify({ kind: 'events', events }), { binary: false }, () => this.written());
    return this.afterSend();
  }

  /** After a write: resync past the high mark, park past the send mark, else whether more is waiting. */
  private afterSend(): boolean {
    const buffered = this.socket.bufferedAmount;
    if (buffered > HIGH_WATER_BYTES) {
      this.resync(`fell behind: ${buffered} bytes unsent`);
      return false;
    }
    if (buffered >= SEND_WATER_BYTES) {
      this.park();
      return false;
    }
    return this.trace.next - 1 > this.cursor;
  }

  private dropped(): boolean {
    return this.cursor > 0 && this.trace.oldest > this.cursor + 1;
  }

  private droppedReason(): string {
    return `fell behind: events after seq ${this.cursor} were dropped before they could be sent`;
  }

  private park(): void {
    this.parked = true;
    this.progressAt = Date.now();
    const check = () => {
      if (!this.parked || this.closed) return;
      const idle = Date.now() - this.progressAt;
      const lag = this.trace.next - 1 - this.cursor;
      if (idle >= STALL_MS && lag > MAX_LAG_EVENTS) this.resync(`fell behind: ${lag} events unsent`);
      else this.stallTimer = setTimeout(check, Math.max(STALL_MS - idle, 100));
    };
    this.stallTimer = setTimeout(check, STALL_MS);
  }

  /** A write completed: a parked client whose buffer is back under the mark goes on. */
  private written(): void {
    this.progressAt = Date.now();
    if (!this.parked || this.closed || this.socket.bufferedAmount >= SEND_WATER_BYTES) return;
    this.parked = false;
    clearTimeout(this.stallTimer);
    this.wake();
  }

  private send(msg: StreamMessage): void {
    this.socket.send(JSON.stringify(msg));
  }

  private resync(reason: string): void {
    if (this.closed) return;
    this.send({ kind: 'resync', reason });
    this.stop();
    this.socket.close(CLOSE_RESYNC, 'resync');
    // A client that reads nothing never completes the close handshake.
    setTimeout(() => this.socket.terminate(), TERMINATE_MS).unref();
  }

  private stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.stallTimer);
    this.pump.remove(this);
    this.unsubscribe?.();
  }
}

async function traceStream(app: FastifyInstance, opts: TraceStreamOptions): Promise<void> {
  const { trace } = app.syncscope;
  const pump = new StreamPump(trace);
  const caps = new StreamCaps(
    opts.maxStreams ?? MAX_STREAMS,
    opts.maxStreamsPerAddress ?? MAX_STREAMS_PER_ADDRESS,
    'trace streams',
  );
  streamRoute(app, {
    url: '/api/v1/trace/stream',
    name: 'the trace stream',
    caps,
    query: streamQuery,
    open: (socket, q) =>
      new StreamClient(
        socket,
        trace,
        pump,
        q.since ?? 0,
        q.podUID ? podStreamFilter(q.podUID) : undefined,
      ).start(),
  });
}

export default fp(traceStream, {
  name: 'syncscope-trace-stream',
  dependencies: ['syncscope-context', '@fastify/websocket'],
});
