/**
 * The server's side of one SPDY/3.1 session (port-forward-spdy.ts's framing), as the kubelet's streaming
 * server keeps it with moby/spdystream: the client opens every stream (SYN_STREAM with its headers), the
 * server replies to each (SYN_REPLY) and hands it to `onStream`, which reads the client's bytes through
 * `onData` and writes its own:
 *
 *   SYN_STREAM ─▶ SYN_REPLY ─▶ onStream(s) ─▶ data both ways ─▶ FIN from each side (or RST_STREAM)
 *
 * PINGs are answered, a GOAWAY ends the session, SETTINGS and WINDOW_UPDATE are read and dropped (the
 * clients do no flow control either). Frames are handled one after another (a SYN_STREAM's headers are
 * decompressed before the next frame is read); at most MAX_STREAMS streams are open (past that: RST_STREAM
 * CANCEL); a malformed frame ends the connection (close 1002). The bytes come as the messages of a
 * StreamSocket: a WebSocket tunnelling SPDY, or an upgraded HTTP connection (spdy-socket.ts).
 */
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
import { SOCKET_OPEN, type StreamSocket } from './spdy-socket.ts';

/** Open streams on one connection at most. */
const MAX_STREAMS = 256;
const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;

/** One stream of the session, as its handler uses it. */
export interface SpdyStream {
  readonly id: number;
  /** The SYN_STREAM's headers, names in lower case. */
  readonly headers: ReadonlyMap<string, string>;
  /** Sends bytes on the stream; dropped once the server's side has ended. */
  write(data: Buffer): void;
  /** Ends the server's side (FIN). */
  end(): void;
  /** Ends both sides at once (RST_STREAM with `status`, PROTOCOL_ERROR unless given). */
  reset(status?: number): void;
  /** Called with the client's bytes, then once with null at its FIN, its reset or the session's end. */
  onData: (data: Buffer | null) => void;
}

/**
 * Serves the SPDY session on `socket`'s messages; `onStream` is called for each stream the client opens,
 * `onClose` once when the connection is gone.
 */
export function serveSpdy(
  socket: StreamSocket,
  onStream: (s: SpdyStream) => void,
  onClose: () => void = () => undefined,
): void {
  const reader = new FrameReader();
  const inflater = new HeaderInflater();
  const deflater = new HeaderDeflater();
  /** Streams the client may still send on. */
  const streams = new Map<number, SpdyStream>();
  let work: Promise<void> = Promise.resolve();
  let closed = false;

  const send = (b: Buffer) => {
    if (socket.readyState === SOCKET_OPEN) socket.send(b, { binary: true });
  };
  const fail = (why: string) => {
    if (closed) return;
    closed = true;
    if (socket.readyState === SOCKET_OPEN) socket.close(CLOSE_PROTOCOL_ERROR, why.slice(0, 120));
  };
  /** The client's side of `s` is over: no more calls after this one. */
  const remoteEnded = (s: SpdyStream) => {
    if (!streams.delete(s.id)) return;
    s.onData(null);
  };

  const open = (id: number, headers: Map<string, string>): SpdyStream => {
    let ended = false;
    const s: SpdyStream = {
      id,
      headers,
      write: (data) => {
        if (!ended && data.length > 0) send(dataFrame(id, data));
      },
      end: () => {
        if (ended) return;
        ended = true;
        send(dataFrame(id, Buffer.alloc(0), true));
      },
      reset: (status = RST_PROTOCOL_ERROR) => {
        ended = true;
        send(rstStreamFrame(id, status));
        remoteEnded(s);
      },
      onData: () => undefined,
    };
    return s;
  };

  const handle = async (f: Frame) => {
    if (!f.control) {
      const s = streams.get(f.streamId);
      if (!s) return send(rstStreamFrame(f.streamId, RST_PROTOCOL_ERROR));
      if (f.payload.length > 0) s.onData(Buffer.from(f.payload));
      if (f.flags & FLAG_FIN) remoteEnded(s);
      return;
    }
    if (f.type === TYPE_SYN_STREAM) {
      const id = f.payload.readUInt32BE(0) & 0x7fffffff;
      const headers = parseHeaderBlock(await inflater.inflate(f.payload.subarray(10)));
      if (!headers) return fail('a SYN_STREAM with a malformed header block');
      if (streams.size >= MAX_STREAMS) return send(rstStreamFrame(id, RST_CANCEL));
      const s = open(id, headers);
      streams.set(id, s);
      send(synReplyFrame(id, deflater));
      onStream(s);
      if (f.flags & FLAG_FIN) remoteEnded(s);
      return;
    }
    if (f.type === TYPE_RST_STREAM) {
      const s = streams.get(f.payload.readUInt32BE(0) & 0x7fffffff);
      if (s) remoteEnded(s);
      return;
    }
    if (f.type === TYPE_PING) return send(pingFrame(f.payload));
    if (f.type === TYPE_GOAWAY && socket.readyState === SOCKET_OPEN) socket.close(CLOSE_NORMAL);
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
    for (const s of [...streams.values()]) remoteEnded(s);
    onClose();
  });
}
