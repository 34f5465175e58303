/**
 * A one-off command in a pod's container, as `kubectl exec pod -c container -- cmd` runs it: a WebSocket to
 * the pod's exec subresource with the channel protocol kubectl speaks (`v5.channel.k8s.io`, else
 * `v4.channel.k8s.io`), no stdin and no terminal. Each binary message is one channel's bytes, the channel
 * first: 1 stdout, 2 stderr, 3 the error channel (one Status: "Success", or "Failure" whose ExitCode cause
 * holds the exit code, or whose message says why the command could not run); v5's [255, n] says channel n
 * ended. The decoding here is pure; startExec is the thin part that holds the socket.
 *
 * A browser cannot read the answer of a refused upgrade (observe mode's 403, a container that is not
 * running), so when the socket closes before it opened the same URL is asked once more as a plain GET: the
 * server checks it the same way and answers with the Status that says why.
 */
import { authFetch, wsProtocols } from './auth.ts';

export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';
export const STREAM_PROTOCOL_V4 = 'v4.channel.k8s.io';
const STDOUT_CHANNEL = 1;
export const STDERR_CHANNEL = 2;
const ERROR_CHANNEL = 3;
const CLOSE_SIGNAL = 255;

/** One message from the server, read. */
export type ServerFrame =
  | { kind: 'data'; channel: number; data: Uint8Array }
  | { kind: 'close'; channel: number }
  | { kind: 'empty' };

/** Reads a server message under `protocol`: only v5 has the close signal (in v4, 255 is a channel). */
export function decodeFrame(msg: Uint8Array, protocol: string): ServerFrame {
  if (msg.length === 0) return { kind: 'empty' };
  const channel = msg[0] as number;
  if (channel === CLOSE_SIGNAL && protocol === STREAM_PROTOCOL_V5 && msg.length >= 2)
    return { kind: 'close', channel: msg[1] as number };
  return { kind: 'data', channel, data: msg.subarray(1) };
}

/** How a command ended: its exit code, or the reason it could not run. */
export type ExecEnd = { exitCode: number } | { message: string };

interface ErrorStatus {
  status?: string;
  message?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}

/** The error channel's Status read as the end of the command (remotecommand's reading of it). */
export function endOf(statusJson: string): ExecEnd {
  let s: ErrorStatus;
  try {
    s = JSON.parse(statusJson) as ErrorStatus;
  } catch {
    return { message: `the error channel sent something that is not a Status: ${statusJson.slice(0, 200)}` };
  }
  if (s.status === 'Success') return { exitCode: 0 };
  const cause = s.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  if (cause && Number.isInteger(code)) return { exitCode: code };
  return { message: s.message ?? 'the command failed without a message' };
}

/** Characters that only a shell gives meaning to: a line with any of them runs through `sh -c`. */
const SHELL_SYNTAX = /[|&;<>()$`\\"'*?[\]{}~#]/;

/** The argv a command line runs as: split on whitespace, or the whole line through `sh -c`. */
export function commandArgv(line: string): { argv: string[]; viaShell: boolean } {
  const trimmed = line.trim();
  if (SHELL_SYNTAX.test(trimmed)) return { argv: ['sh', '-c', trimmed], viaShell: true };
  return { argv: trimmed === '' ? [] : trimmed.split(/\s+/), viaShell: false };
}

export interface ExecTarget {
  namespace: string;
  name: string;
  container: string;
  argv: readonly string[];
}

/** The exec subresource's path and query for `t` (stdout and stderr, no stdin, no terminal). */
export function execPath(t: ExecTarget): string {
  const q = new URLSearchParams();
  for (const arg of t.argv) q.append('command', arg);
  q.set('container', t.container);
  q.set('stdout', 'true');
  q.set('stderr', 'true');
  const ns = encodeURIComponent(t.namespace);
  return `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(t.name)}/exec?${q}`;
}

export interface ExecHandlers {
  output(channel: typeof STDOUT_CHANNEL | typeof STDERR_CHANNEL, text: string): void;
  end(end: ExecEnd): void;
}

/** Why the server would not upgrade `path`: the Status message of the same request made plainly. */
async function refusalOf(path: string): Promise<string> {
  try {
    const res = await authFetch(path);
    const text = (await res.text()).trim();
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? '';
    } catch {
      // the kubelet's own refusals are plain text ("container not found (\"app\")")
    }
    // our queries are well formed: a 400 here is only "use a WebSocket", so the upgrade itself failed
    if (res.status === 400 || message === '') return `the server closed the connection (HTTP ${res.status})`;
    return message;
  } catch (e) {
    return `the server could not be reached: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * Runs `t` once: output as it comes, then exactly one end (the exit code, or why it did not run). Returns
 * the cancel, which closes the socket; nothing is reported after it.
 */
export function startExec(t: ExecTarget, on: ExecHandlers): () => void {
  const path = execPath(t);
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${window.location.host}${path}`, [
    STREAM_PROTOCOL_V5,
    STREAM_PROTOCOL_V4,
    ...wsProtocols(),
  ]);
  ws.binaryType = 'arraybuffer';
  const text = { [STDOUT_CHANNEL]: new TextDecoder(), [STDERR_CHANNEL]: new TextDecoder() } as const;
  const status = new TextDecoder();
  let statusText = '';
  let opened = false;
  let done = false;
  const finish = (end: ExecEnd) => {
    if (done) return;
    done = true;
    for (const ch of [STDOUT_CHANNEL, STDERR_CHANNEL] as const) {
      const rest = text[ch].decode();
      if (rest !== '') on.output(ch, rest);
    }
    on.end(end);
  };
  ws.onopen = () => {
    opened = true;
  };
  ws.onmessage = (e: MessageEvent) => {
    if (done || !(e.data instanceof ArrayBuffer)) return;
    const f = decodeFrame(new Uint8Array(e.data), ws.protocol);
    if (f.kind !== 'data' || f.data.length === 0) return;
    if (f.channel === STDOUT_CHANNEL || f.channel === STDERR_CHANNEL)
      on.output(f.channel, text[f.channel].decode(f.data, { stream: true }));
    else if (f.channel === ERROR_CHANNEL) statusText += status.decode(f.data, { stream: true });
  };
  ws.onclose = (e: CloseEvent) => {
    if (done) return;
    statusText += status.decode();
    if (statusText !== '') return finish(endOf(statusText));
    if (opened)
      return finish({
        message: `the connection closed before the command ended${e.reason ? `: ${e.reason}` : ''}`,
      });
    void refusalOf(path).then((message) => finish({ message }));
  };
  return () => {
    if (done) return;
    done = true;
    ws.close(1000, 'cancelled');
  };
}
