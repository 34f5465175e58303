/**
 * WebSocket /api/v1/trace/stream?since=<seq>: the trace live. Messages (JSON text frames):
 *   {kind: 'events', events: TraceEvent[]}   seq strictly increasing across messages, no gaps within a
 *                                            run (after a crash the next run starts above a reserved block)
 *   {kind: 'resync', reason}                 the client fell behind; the server closes the socket next.
 *                                            Reload state over REST and reconnect with a fresh ?since=.
 *
 * First the backlog with seq > since (all the ring holds when since is 0), then live events, batched: a
 * batch leaves after FLUSH_MS or as soon as BATCH_EVENTS are waiting.
 *
 * Memory: a client holds no queue of its own. It keeps a cursor (the last seq sent) and reads forward from
 * the TraceRecorder's ring, which is bounded already; per tick it writes only while the socket's
 * bufferedAmount is under SEND_WATER_BYTES. It is told to resync when the ring has dropped events it has
 * not been sent, when bufferedAmount passes HIGH_WATER_BYTES, or when it is more than MAX_LAG_EVENTS behind
 * and its socket has not drained for STALL_MS. A resynced client is closed, and terminated if it does not
 * finish the close handshake within TERMINATE_MS; its cursor, timer and subscription go with it.
 *
 * Access: the Origin must be the page this server served (no Origin: a non-browser client); with a token,
 * the access hook wants it (header, or the bearer subprotocol) before the upgrade.
 */
import { isStatus } from '@syncscope/core/api';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { WebSocket } from 'ws';
import { READ_ROUTE } from '../access.ts';
import { originAllowed, type TraceSource } from '../context.ts';
import { badRequest, intParam, sendStatus, status } from '../status.ts';

export const FLUSH_MS = 50;
export const BATCH_EVENTS = 500;
export const SEND_WATER_BYTES = 1024 * 1024;
export const HIGH_WATER_BYTES = 8 * 1024 * 1024;
export const MAX_LAG_EVENTS = 10_000;
export const STALL_MS = 5_000;
const CLOSE_RESYNC = 4000;
export const TERMINATE_MS = 5_000;

export type StreamMessage = { kind: 'events'; events: TraceEvent[] } | { kind: 'resync'; reason: string };

/** One subscriber: a cursor into the ring and a flush timer. */
class StreamClient {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private stalledSince: number | undefined;
  private lastBuffered = 0;

  constructor(
    private readonly socket: WebSocket,
    private readonly trace: TraceSource,
    private cursor: number,
  ) {}

  start(): void {
    this.socket.on('close', () => this.stop());
    this.socket.on('error', () => this.stop());
    if (this.cursor > 0 && this.trace.oldest > this.cursor + 1) {
      this.resync(`events ${this.cursor + 1}..${this.trace.oldest - 1} are no longer held`);
      return;
    }
    this.unsubscribe = this.trace.subscribe((ev) => {
      if (ev.seq - this.cursor >= BATCH_EVENTS) this.schedule(0);
      else this.schedule(FLUSH_MS);
    });
    this.flush();
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer && ms > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    if (this.cursor > 0 && this.trace.oldest > this.cursor + 1) {
      this.resync(`fell behind: events after seq ${this.cursor} were dropped before they could be sent`);
      return;
    }
    while (this.socket.bufferedAmount < SEND_WATER_BYTES) {
      const batch = this.trace.since(this.cursor, undefined, BATCH_EVENTS);
      const last = batch[batch.length - 1];
      if (!last) break;
      this.send({ kind: 'events', events: batch });
      this.cursor = last.seq;
    }
    const buffered = this.socket.bufferedAmount;
    if (buffered > HIGH_WATER_BYTES) {
      this.resync(`fell behind: ${buffered} bytes unsent`);
      return;
    }
    const lag = this.trace.next - 1 - this.cursor;
    if (lag > 0 && buffered >= this.lastBuffered && buffered > 0) {
      if (this.stalledSince === undefined) this.stalledSince = Date.now();
      const stalledSince = this.stalledSince;
      if (lag > MAX_LAG_EVENTS && Date.now() - stalledSince >= STALL_MS) {
        this.resync(`fell behind: ${lag} events unsent`);
        return;
      }
    } else {
      this.stalledSince = undefined;
    }
    this.lastBuffered = buffered;
    if (lag > 0) this.schedule(FLUSH_MS);
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
    this.unsubscribe?.();
  }
}

export { originAllowed };

async function traceStream(app: FastifyInstance): Promise<void> {
  const { trace } = app.syncscope;
  app.route<{ Querystring: { since?: string } }>({
    method: 'GET',
    url: '/api/v1/trace/stream',
    ...READ_ROUTE,
    preValidation: async (req, reply) => {
      if (!originAllowed(req.headers.origin, req.headers.host)) {
        return sendStatus(
          reply,
          status(403, 'Forbidden', `origin ${req.headers.origin} may not open the trace stream`),
        );
      }
      const since = intParam('since', req.query.since);
      if (isStatus(since)) return sendStatus(reply, since);
    },
    // a plain GET (no Upgrade): say what the endpoint wants rather than a bare 404
    handler: async (_req, reply) =>
      sendStatus(
        reply,
        badRequest('the trace stream is a WebSocket: send Connection: Upgrade and Upgrade: websocket'),
      ),
    wsHandler: (socket, req) => {
      const since = intParam('since', req.query.since);
      new StreamClient(socket, trace, typeof since === 'number' ? since : 0).start();
    },
  });
}

export default fp(traceStream, {
  name: 'syncscope-trace-stream',
  dependencies: ['syncscope-context', '@fastify/websocket'],
});
