/**
 * One way to serve a read-only WebSocket stream (the trace stream, the node rows stream): the route is a
 * read route (the access hook checks the token before the upgrade), the Origin must be this server's page
 * (403 Status), the query is read before the upgrade (a bad value is a 400 Status naming the field), a
 * plain GET without Upgrade is a 400 saying what the endpoint wants, and open streams are capped in total
 * and per client address (a refused socket is closed with 1013 "Try Again Later" and the reason).
 */
import { isStatus, type Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { READ_ROUTE } from '../access.ts';
import { originAllowed } from '../context.ts';
import { addressKey } from '../limits.ts';
import { badRequest, sendStatus, status } from '../status.ts';

/** RFC 6455 "Try Again Later". */
const CLOSE_TRY_AGAIN_LATER = 1013;

/** Counts open streams, in total and per client address. */
export class StreamCaps {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly maxPerAddress: number,
    /** what the refusals name, e.g. "trace streams" */
    private readonly what = 'streams',
  ) {}

  /** Takes a place for a stream from `address`; the close reason if a cap is reached. */
  take(address: string): { release: () => void } | { refused: string } {
    const n = this.byAddress.get(address) ?? 0;
    if (n >= this.maxPerAddress)
      return { refused: `too many ${this.what} from one address (cap per address: ${this.maxPerAddress})` };
    if (this.total >= this.max) return { refused: `too many ${this.what} (cap in total: ${this.max})` };
    this.total++;
    this.byAddress.set(address, n + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byAddress.get(address) ?? 1) - 1;
        if (left > 0) this.byAddress.set(address, left);
        else this.byAddress.delete(address);
      },
    };
  }
}

export interface StreamRoute<Q> {
  url: string;
  /** the stream's name in messages: "the trace stream" */
  name: string;
  caps: StreamCaps;
  /** reads the query (`since` and the like): the value, or the 400 Status naming the field */
  query: (q: Record<string, unknown>) => Q | Status;
  /** serves one accepted socket */
  open: (socket: WebSocket, query: Q, req: FastifyRequest) => void;
}

/** Registers the stream at `r.url`. */
export function streamRoute<Q>(app: FastifyInstance, r: StreamRoute<Q>): void {
  const read = (req: FastifyRequest) => r.query((req.query ?? {}) as Record<string, unknown>);
  app.route({
    method: 'GET',
    url: r.url,
    ...READ_ROUTE,
    preValidation: async (req, reply) => {
      if (!originAllowed(req.headers.origin, req.headers.host))
        return sendStatus(
          reply,
          status(403, 'Forbidden', `origin ${req.headers.origin} may not open ${r.name}`),
        );
      const q = read(req);
      if (isStatus(q)) return sendStatus(reply, q);
    },
    handler: async (_req, reply) =>
      sendStatus(
        reply,
        badRequest(`${r.name} is a WebSocket: send Connection: Upgrade and Upgrade: websocket`),
      ),
    wsHandler: (socket, req) => {
      const place = r.caps.take(addressKey(req.ip));
      if ('refused' in place) {
        socket.close(CLOSE_TRY_AGAIN_LATER, place.refused);
        return;
      }
      socket.once('close', place.release);
      r.open(socket, read(req) as Q, req);
    },
  });
}
