/**
 * The response of a watch (pods, and every other object kind) once the request is past every refusal: a
 * 200 with the headers a watching client expects, flushed at once so it knows the watch stands, then one
 * JSON line per change. A client that stops reading is not waited for: once HIGH_WATER_BYTES are queued
 * for it, the watch ends, and an end with that much still queued cuts the connection.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/** Bytes queued for one watcher past which it is dropped. */
const HIGH_WATER_BYTES = 8 * 1024 * 1024;

export interface WatchStream {
  res: ServerResponse;
  /** Writes one encoded line; calls the `behind` given to startWatch once too much waits for the client. */
  send(line: string): void;
  /** Ends the response: at once when the client is too far behind, else after what is queued. */
  finish(): void;
}

/** Takes the response over from Fastify and starts the watch's stream (see the file comment). */
export function startWatch(reply: FastifyReply, behind: () => void): WatchStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
  });
  res.flushHeaders();
  return {
    res,
    send(line) {
      res.write(line);
      if (res.writableLength > HIGH_WATER_BYTES) behind();
    },
    finish() {
      if (res.writableLength > HIGH_WATER_BYTES) res.destroy();
      else res.end();
    },
  };
}
