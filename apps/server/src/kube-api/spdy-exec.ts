/**
 * Exec and attach over SPDY (`v4.channel.k8s.io` after a SPDY/3.1 upgrade), served by the same sessions as
 * the WebSocket (exec-session.ts, exec-attach.ts): the SPDY streams are read as that protocol's channels.
 * As the kubelet's streaming server does (remotecommand's createStreams and waitForStreams):
 *
 *   upgrade ─▶ the client opens one stream per channel, each with a `streamType` header:
 *              error (always), stdin (-i), stdout, stderr (not under a tty), resize (under a tty)
 *           ─▶ all the plan asks for are open ─▶ the session runs on them ─▶ it closes: FIN on every stream
 *           ─▶ the client, having read stdout, stderr and the error Status to their ends, closes
 *
 * A client that has not opened them within STREAM_CREATION_TIMEOUT_MS is cut off (the kubelet's default
 * stream creation timeout), as is one sending more than MAX_HELD_BYTES before that. A stream of an unknown
 * type, or a second one of a type, is reset.
 *
 * Channel mapping: the session's message [n, …bytes] goes on the stream of channel n (an empty message,
 * the WebSocket's "ready" signal, is not sent); the client's stdin bytes arrive as [0, …] and its stdin
 * FIN as the close signal [255, 0], as a v5 WebSocket carries them, so a command reading stdin to its end
 * sees the end (which v4 over a WebSocket cannot say). Resize bytes arrive as [4, …].
 */
import { EventEmitter } from 'node:events';
import {
  ERROR_CHANNEL,
  STDERR_CHANNEL,
  STDIN_CHANNEL,
  STDOUT_CHANNEL,
  STREAM_PROTOCOL_V5,
} from './exec-channel.ts';
import type { StreamPlan } from './exec-plan.ts';
import { type SpdyStream, serveSpdy } from './spdy-session.ts';
import { SOCKET_CLOSED, SOCKET_CLOSING, SOCKET_OPEN, type StreamSocket } from './spdy-socket.ts';

/** The remotecommand stream types (k8s.io/api/core/v1 StreamType values) and their channels. */
const RESIZE_CHANNEL = 4;
const CHANNEL_OF_STREAM_TYPE: ReadonlyMap<string, number> = new Map([
  ['error', ERROR_CHANNEL],
  ['stdin', STDIN_CHANNEL],
  ['stdout', STDOUT_CHANNEL],
  ['stderr', STDERR_CHANNEL],
  ['resize', RESIZE_CHANNEL],
]);
const STREAM_TYPE_HEADER = 'streamtype';
/** The first byte of a v5 close signal. */
const CLOSE_SIGNAL = 255;
/** How long the client has to open its streams (the kubelet's DefaultStreamCreationTimeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;
/** The most a client may send before its streams are all open (it sends nothing then). */
const MAX_HELD_BYTES = 1024 * 1024;
/** How long a finished session waits for the client to close the connection before closing it. */
const CLOSE_LINGER_MS = 10_000;
const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;

/** The stream types a client opens for `plan`, as remotecommand's v4 client creates them. Pure. */
function expectedStreamTypes(plan: Pick<StreamPlan, 'stdin' | 'stdout' | 'stderr' | 'tty'>): string[] {
  const out = ['error'];
  if (plan.stdin) out.push('stdin');
  if (plan.stdout) out.push('stdout');
  if (plan.stderr && !plan.tty) out.push('stderr');
  if (plan.tty) out.push('resize');
  return out;
}

/**
 * Reads the exec streams of the SPDY session on `conn` (an upgraded connection) and, once those of `plan`
 * are all open, calls `ready` with them as one channel StreamSocket.
 */
export function acceptExecStreams(
  conn: StreamSocket,
  plan: Pick<StreamPlan, 'stdin' | 'stdout' | 'stderr' | 'tty'>,
  ready: (socket: StreamSocket) => void,
  timeoutMs = STREAM_CREATION_TIMEOUT_MS,
): void {
  const want = expectedStreamTypes(plan);
  const byChannel = new Map<number, SpdyStream>();
  const events = new EventEmitter();
  /** Client messages that came before the session was listening. */
  let held: Buffer[] | null = [];
  let heldBytes = 0;
  let state = SOCKET_OPEN;
  let linger: NodeJS.Timeout | undefined;

  const deliver = (msg: Buffer) => {
    if (!held) return events.emit('message', msg);
    heldBytes += msg.length;
    if (heldBytes > MAX_HELD_BYTES)
      return conn.close(CLOSE_PROTOCOL_ERROR, 'too much sent before the streams');
    held.push(msg);
  };
  const socket: StreamSocket = {
    protocol: STREAM_PROTOCOL_V5,
    get readyState() {
      return state;
    },
    send: (msg) => {
      if (state !== SOCKET_OPEN || msg.length < 2) return;
      byChannel.get(msg[0] as number)?.write(msg.subarray(1));
    },
    close: (code = CLOSE_NORMAL, reason) => {
      if (state !== SOCKET_OPEN) return;
      state = SOCKET_CLOSING;
      // a session that could not run: the connection ends at once, as a WebSocket closed in error does
      if (code !== CLOSE_NORMAL) return conn.close(code, reason);
      for (const s of byChannel.values()) s.end();
      linger = setTimeout(() => conn.close(), CLOSE_LINGER_MS);
      linger.unref();
    },
    on: (event: 'message' | 'close', fn: (data: Buffer) => void) => events.on(event, fn),
    once: (event: 'close', fn: () => void) => events.once(event, fn),
  };

  const timer = setTimeout(
    () => conn.close(CLOSE_PROTOCOL_ERROR, 'timed out waiting for the client to create streams'),
    timeoutMs,
  );
  timer.unref();

  const onStream = (s: SpdyStream) => {
    const channel = CHANNEL_OF_STREAM_TYPE.get(s.headers.get(STREAM_TYPE_HEADER) ?? '');
    if (channel === undefined || byChannel.has(channel) || !held) return s.reset();
    byChannel.set(channel, s);
    s.onData = (data) => {
      if (channel !== STDIN_CHANNEL && channel !== RESIZE_CHANNEL) return;
      if (data) deliver(Buffer.concat([Buffer.of(channel), data]));
      // a FIN, not the connection going away (which ends every stream): stdin is at its end
      else if (channel === STDIN_CHANNEL && conn.readyState === SOCKET_OPEN)
        deliver(Buffer.of(CLOSE_SIGNAL, channel));
    };
    if (!want.every((t) => byChannel.has(CHANNEL_OF_STREAM_TYPE.get(t) ?? -1))) return;
    clearTimeout(timer);
    ready(socket);
    const early = held;
    held = null;
    for (const m of early) events.emit('message', m);
  };

  serveSpdy(conn, onStream, () => {
    clearTimeout(timer);
    clearTimeout(linger);
    state = SOCKET_CLOSED;
    events.emit('close');
  });
}
