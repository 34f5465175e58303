/**
 * One WebSocket of /api/v1/node/rows/stream: a cursor into NodeRows. Messages (JSON text frames), one per
 * batch of the store (so at most one every TICK_MS):
 *
 *   {kind: 'rows', cursor, words, rows, removed, full}   rows that changed (whole, packed by core's
 *                                 encodeRows), uids removed; with `full`, every row: what the client held
 *                                 before is dropped
 *
 * The first message answers the ?since= the socket was opened with (every row without one). Pacing: while
 * the socket holds SEND_WATER_BYTES unsent the client skips batches; when a write completes under the mark
 * it catches up with one answer to its own cursor (the rows changed meanwhile, each once). So what waits
 * for a slow client is at most one batch, never a queue.
 */
import { encodeRows, type WireRows } from '@syncscope/core/pod-state';
import type { WebSocket } from 'ws';
import type { NodeRows, RowsAnswer } from './store.ts';

const SEND_WATER_BYTES = 512 * 1024;

/** A message as sent: the answer's rows packed by core's encodeRows. */
export type RowsMessage = { kind: 'rows' } & Omit<RowsAnswer, 'rows'> & WireRows;

export class RowsClient {
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** batches were skipped: the next send is an answer to the cursor */
  private behind = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly store: NodeRows,
    private cursor: string | undefined,
  ) {}

  start(): void {
    this.socket.on('close', () => this.stop());
    this.socket.on('error', () => this.stop());
    this.unsubscribe = this.store.subscribe((b) => {
      if (this.closed) return;
      if (this.behind || this.socket.bufferedAmount >= SEND_WATER_BYTES) {
        this.behind = true;
        return;
      }
      this.send({ ...b, full: false });
    });
    this.catchUp();
  }

  private catchUp(): void {
    this.behind = false;
    const answer =
      this.cursor === undefined
        ? { ...this.store.rows(), removed: [], full: true }
        : this.store.since(this.cursor);
    this.send(answer);
  }

  private send(a: RowsAnswer): void {
    this.cursor = a.cursor;
    const msg: RowsMessage = {
      kind: 'rows',
      cursor: a.cursor,
      full: a.full,
      removed: a.removed,
      ...encodeRows(a.rows),
    };
    this.socket.send(JSON.stringify(msg), { binary: false }, () => this.written());
  }

  /** A write completed: a client that skipped batches catches up once its buffer is under the mark. */
  private written(): void {
    if (this.closed || !this.behind || this.socket.bufferedAmount >= SEND_WATER_BYTES) return;
    this.catchUp();
  }

  private stop(): void {
    this.closed = true;
    this.unsubscribe?.();
  }
}
