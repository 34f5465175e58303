/**
 * One port-forward connection as the kubelet's streaming server serves it (portforward.k8s.io over SPDY,
 * here tunnelled in the binary messages of a WebSocket, as client-go 1.30+ opens it): for every local
 * connection the client opens two streams with the same `requestID` and `port` headers, an `error` one
 * (which the client closes at once and reads to its end) and a `data` one (the bytes both ways). The
 * server replies to each SYN_STREAM, answers PINGs, and hands every complete pair to `forward`, which
 * writes what went wrong on the error stream and ends both when the connection is over.
 *
 * Frames are handled one after another (a SYN_STREAM's headers are decompressed before the next frame);
 * at most MAX_STREAMS streams are open at once (past that: RST_STREAM), and a malformed frame ends the
 * connection (close 1002).
 */
import type { WebSocket } from 'ws';
import {
  dataFrame,
  FLAG_FIN,
  type Frame,
  FrameReader,
  HeaderDeflater,
  HeaderInflater,
  parseHeaderBlock,
  pingFrame,
  RST_CANCEL,
  RST_PROTOCOL_ERROR,
  rstStreamFrame,
  synReplyFrame,
  TYPE_GOAWAY,
  TYPE_PING,
  TYPE_RST_STREAM,
  TYPE_SYN_STREAM,
} from './port-forward-spdy.ts';

/** The port-forward stream headers (k8s.io/api/core/v1: StreamType, PortHeader, PortForwardRequestIDHeader). */
const STREAM_TYPE_HEADER = 'streamtype';
const PORT_HEADER = 'port';
const REQUEST_ID_HEADER = 'requestid';
/** Open streams on one connection at most (two per forwarded local connection). */
const MAX_STREAMS = 256;
const OPEN = 1;
const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;

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

interface Stream extends ForwardStream {
  id: number;
  type: string;
  requestId: string;
  port: string;
}

/** Serves the SPDY session tunnelled on `socket` (its subprotocol negotiated). */
export function servePortForward(socket: WebSocket, forward: Forward): void {
  const reader = new FrameReader();
  const inflater = new HeaderInflater();
  const deflater = new HeaderDeflater();
  const streams = new Map<number, Stream>();
  const waiting = new Map<string, Stream>();
  let work: Promise<void> = Promise.resolve();
  let closed = false;

  const send = (b: Buffer) => {
    if (socket.readyState === OPEN) socket.send(b, { binary: true });
  };
  const fail = (why: string) => {
    if (closed) return;
    closed = true;
    if (socket.readyState === OPEN) socket.close(CLOSE_PROTOCOL_ERROR, why.slice(0, 120));
  };

  const open = (id: number, headers: Map<string, string>): Stream => {
    let ended = false;
    const s: Stream = {
      id,
      type: headers.get(STREAM_TYPE_HEADER) ?? '',
      requestId: headers.get(REQUEST_ID_HEADER) ?? '',
      port: headers.get(PORT_HEADER) ?? '',
      write: (data) => {
        if (!ended && data.length > 0) send(dataFrame(id, data));
      },
      end: () => {
        if (ended) return;
        ended = true;
        send(dataFrame(id, Buffer.alloc(0), true));
      },
      onData: () => undefined,
    };
    return s;
  };

  const pair = (s: Stream) => {
    const key = s.requestId || `port:${s.port}`;
    const other = waiting.get(key);
    if (!other || other.type === s.type) {
      waiting.set(key, s);
      return;
    }
    waiting.delete(key);
    const [data, error] = s.type === 'data' ? [s, other] : [other, s];
    forward(data.port, data, error);
  };

  const handle = async (f: Frame) => {
    if (!f.control) {
      const s = streams.get(f.streamId);
      if (!s) return send(rstStreamFrame(f.streamId, RST_PROTOCOL_ERROR));
      if (f.payload.length > 0) s.onData(Buffer.from(f.payload));
      if (f.flags & FLAG_FIN) {
        streams.delete(f.streamId);
        s.onData(null);
      }
      return;
    }
    if (f.type === TYPE_SYN_STREAM) {
      const id = f.payload.readUInt32BE(0) & 0x7fffffff;
      const headers = parseHeaderBlock(await inflater.inflate(f.payload.subarray(10)));
      if (!headers) return fail('a SYN_STREAM with a malformed header block');
      if (streams.size >= MAX_STREAMS) return send(rstStreamFrame(id, RST_CANCEL));
      const s = open(id, headers);
      send(synReplyFrame(id, deflater));
      if (f.flags & FLAG_FIN) s.onData(null);
      else streams.set(id, s);
      if (s.type !== 'data' && s.type !== 'error') {
        send(rstStreamFrame(id, RST_PROTOCOL_ERROR));
        streams.delete(id);
        return;
      }
      return pair(s);
    }
    if (f.type === TYPE_RST_STREAM) {
      const id = f.payload.readUInt32BE(0) & 0x7fffffff;
      const s = streams.get(id);
      streams.delete(id);
      s?.onData(null);
      return;
    }
    if (f.type === TYPE_PING) return send(pingFrame(f.payload));
    if (f.type === TYPE_GOAWAY && socket.readyState === OPEN) socket.close(CLOSE_NORMAL);
    // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do (the client does no flow control either)
  };

  socket.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    if (closed) return;
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    const frames = reader.push(buf);
    if ('error' in frames) return fail(frames.error);
    for (const f of frames)
      work = work
        .then(() => handle(f))
        .catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
  });
  socket.on('close', () => {
    closed = true;
    inflater.close();
    for (const s of streams.values()) s.onData(null);
    streams.clear();
    waiting.clear();
  });
}
