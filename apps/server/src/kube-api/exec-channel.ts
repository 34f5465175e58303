/**
 * The channel protocol of a pod's exec and attach over a WebSocket, as the kubelet's streaming server and
 * client-go's remotecommand speak it (apimachinery util/remotecommand, util/httpstream/wsstream):
 *   - every binary message is one channel's bytes, the channel number first: 0 stdin (client → server),
 *     1 stdout, 2 stderr, 3 error (one Status JSON, sent once, before the server closes), 4 resize
 *     (client → server, a TerminalSize JSON);
 *   - `v5.channel.k8s.io` adds the close signal: the message [255, n] says channel n has ended (a client's
 *     stdin at EOF); `v4.channel.k8s.io` has none, so its stdin ends only with the connection.
 * Pure: framing and the error channel's Status, no sockets.
 */

export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';
export const STREAM_PROTOCOL_V4 = 'v4.channel.k8s.io';
/** The protocols served, preferred first. */
export const SUPPORTED_STREAM_PROTOCOLS: readonly string[] = [STREAM_PROTOCOL_V5, STREAM_PROTOCOL_V4];

export const STDIN_CHANNEL = 0;
export const STDOUT_CHANNEL = 1;
export const STDERR_CHANNEL = 2;
export const ERROR_CHANNEL = 3;
/** v5's first byte of a close signal; the second names the channel that ended. */
const CLOSE_SIGNAL = 255;

/** The error channel's reason and cause type for a command that ran and exited non-zero. */
const NON_ZERO_EXIT_CODE_REASON = 'NonZeroExitCode';
const EXIT_CODE_CAUSE_TYPE = 'ExitCode';

/** The largest data message the server writes; longer output is split. */
export const MAX_FRAME_BYTES = 32 * 1024;

/** One message from the client, read. */
export type ClientMessage =
  | { kind: 'data'; channel: number; data: Buffer }
  | { kind: 'close'; channel: number }
  | { kind: 'empty' };

/** Reads a client message under `protocol`: a close signal only exists in v5 (in v4, 255 is a channel). */
export function readClientMessage(msg: Buffer, protocol: string): ClientMessage {
  if (msg.length === 0) return { kind: 'empty' };
  const channel = msg[0] as number;
  if (channel === CLOSE_SIGNAL && protocol === STREAM_PROTOCOL_V5 && msg.length >= 2)
    return { kind: 'close', channel: msg[1] as number };
  return { kind: 'data', channel, data: msg.subarray(1) };
}

/** `data` on `channel` as messages of at most MAX_FRAME_BYTES of data each; none for empty data. */
export function frames(channel: number, data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += MAX_FRAME_BYTES) {
    const part = data.subarray(at, at + MAX_FRAME_BYTES);
    out.push(Buffer.concat([Buffer.of(channel), part]));
  }
  return out;
}

/** The empty message the server sends on a channel to tell the client the streams are up. */
export const readyFrame = (channel: number): Buffer => Buffer.of(channel);

/**
 * The protocol to answer with: the client's first one served, or undefined. Offers are the
 * Sec-WebSocket-Protocol header's comma-separated names.
 */
export function negotiateProtocol(header: string | undefined): string | undefined {
  const offered = (header ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return offered.find((p) => SUPPORTED_STREAM_PROTOCOLS.includes(p));
}

/** The error channel's Status (metav1.Status as the kubelet marshals it: no apiVersion or kind). */
export interface ErrorChannelStatus {
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { causes: { reason?: string; message: string }[] };
  code?: number;
}

export const successStatus = (): ErrorChannelStatus => ({ metadata: {}, status: 'Success' });

/** A command that ran and exited with `exitCode` (> 0), in the kubelet's and the runtime's words. */
export function exitCodeStatus(cmd: readonly string[], exitCode: number): ErrorChannelStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${cmd.join(' ')}], exit code ${exitCode}`,
    reason: NON_ZERO_EXIT_CODE_REASON,
    details: { causes: [{ reason: EXIT_CODE_CAUSE_TYPE, message: String(exitCode) }] },
  };
}

/** A command that could not run (not found, the runtime failed): the kubelet's InternalError. */
export function execErrorStatus(message: string): ErrorChannelStatus {
  const err = `error executing command in container: ${message}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${err}`,
    reason: 'InternalError',
    details: { causes: [{ message: err }] },
    code: 500,
  };
}

/** The error channel's one message. */
export const statusFrame = (s: ErrorChannelStatus): Buffer =>
  Buffer.concat([Buffer.of(ERROR_CHANNEL), Buffer.from(JSON.stringify(s))]);
