/**
 * One WebSocket of /api/v1/node/aggregates/stream: a cursor into NodeAggregates. Messages (JSON text
 * frames), one per batch of the store (so at most one every TICK_MS, none while nothing changes):
 *
 *   {kind: 'aggregates', cursor, full, from, windowStart, loop, relists, housekeeping, skipped, faults,
 *    deleted}   the entries changed (core's NodeAggregatesWire); with `full`, everything held: what the
 *               client held before is dropped
 *
 * The first message answers the ?since= the socket was opened with (everything without one). Pacing as
 * the rows' (../node-rows/rows-client.ts): while the socket holds SEND_WATER_BYTES unsent the client skips
 * batches, then catches up with one answer to its own cursor, so what waits for a slow client is one batch.
 */
import type { NodeAggregatesWire } from '@syncscope/core/pod-state';
import type { WebSocket } from 'ws';
import type { NodeAggregates } from './store.ts';

const SEND_WATER_BYTES = 256 * 1024;

export type AggregatesMessage = { kind: 'aggregates' } & NodeAggregatesWire;

export class AggregatesClient {
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private behind = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly store: NodeAggregates,
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
      this.send(b);
    });
    this.catchUp();
  }

  private catchUp(): void {
    // reading the store closes its pending batch and sends it to every listener, this one too: skipped here
    // (it is in the answer), so nothing newer goes out before the answer
    this.behind = true;
    const answer = this.cursor === undefined ? this.store.current() : this.store.since(this.cursor);
    this.behind = false;
    this.send(answer);
  }

  private send(a: NodeAggregatesWire): void {
    this.cursor = a.cursor;
    const msg: AggregatesMessage = { kind: 'aggregates', ...a };
    this.socket.send(JSON.stringify(msg), { binary: false }, () => this.written());
  }

  private written(): void {
    if (this.closed || !this.behind || this.socket.bufferedAmount >= SEND_WATER_BYTES) return;
    this.catchUp();
  }

  private stop(): void {
    this.closed = true;
    this.unsubscribe?.();
  }
}
