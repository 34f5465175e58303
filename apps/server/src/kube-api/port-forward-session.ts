/**
 * One port-forward connection as the kubelet's streaming server serves it (portforward.k8s.io over SPDY,
 * spdy-session.ts): for every local connection the client opens two streams with the same `requestID` and
 * `port` headers, an `error` one (which the client closes at once and reads to its end) and a `data` one
 * (the bytes both ways). Every complete pair goes to `forward`, which writes what went wrong on the error
 * stream and ends both when the connection is over; a stream of any other type is reset.
 *
 * The SPDY bytes come either tunnelled in the binary messages of a WebSocket (client-go 1.30+) or on the
 * HTTP connection itself after a SPDY/3.1 upgrade (older clients, spdy-socket.ts): the same session.
 */
import { type SpdyStream, serveSpdy } from './spdy-session.ts';
import type { StreamSocket } from './spdy-socket.ts';

/** The port-forward stream headers (k8s.io/api/core/v1: StreamType, PortHeader, PortForwardRequestIDHeader). */
const STREAM_TYPE_HEADER = 'streamtype';
const PORT_HEADER = 'port';
const REQUEST_ID_HEADER = 'requestid';
const STREAM_TYPE_DATA = 'data';
const STREAM_TYPE_ERROR = 'error';

/** One side of a stream, as a forwarder uses it. */
export interface ForwardStream {
  write(data: Buffer): void;
  /** Ends the server's side (FIN); later writes are dropped. */
  end(): void;
  /** Called with the client's bytes, then once with null at its FIN or reset. */
  onData: (data: Buffer | null) => void;
}

/** The pair of one forwarded connection. `port` is the header's text (checked by the forwarder). */
export type Forward = (port: string, data: ForwardStream, error: ForwardStream) => void;

/** Serves the port-forward SPDY session on `socket` (a negotiated WebSocket tunnel or upgraded connection). */
export function servePortForward(socket: StreamSocket, forward: Forward): void {
  /** The first stream of each pair, by request id, until its partner comes. */
  const waiting = new Map<string, SpdyStream>();

  const pair = (s: SpdyStream) => {
    const type = s.headers.get(STREAM_TYPE_HEADER);
    if (type !== STREAM_TYPE_DATA && type !== STREAM_TYPE_ERROR) return s.reset();
    const key = s.headers.get(REQUEST_ID_HEADER) || `port:${s.headers.get(PORT_HEADER) ?? ''}`;
    const other = waiting.get(key);
    if (!other || other.headers.get(STREAM_TYPE_HEADER) === type) {
      waiting.set(key, s);
      return;
    }
    waiting.delete(key);
    const [data, error] = type === STREAM_TYPE_DATA ? [s, other] : [other, s];
    forward(data.headers.get(PORT_HEADER) ?? '', data, error);
  };

  serveSpdy(socket, pair, () => waiting.clear());
}
