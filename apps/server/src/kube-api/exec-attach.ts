/**
 * One attach over an accepted WebSocket: what the container's running instance writes from now on, read
 * from its CRI log file as `kubectl logs -f` follows it (log-follow.ts), sent on stdout (or stderr when
 * only that was asked for; the file keeps both streams, so both arrive on the one channel), until the
 * instance stops (then a Success Status and close 1000) or the client goes away (the follower stops).
 * Stdin and resize messages are read and dropped: a simulated container reads no stdin.
 */
import type { Pod } from '@syncscope/core/api';
import { readPodLogFile } from '../pod-logs.ts';
import {
  execErrorStatus,
  frames,
  readyFrame,
  STDERR_CHANNEL,
  STDOUT_CHANNEL,
  statusFrame,
  successStatus,
} from './exec-channel.ts';
import type { StreamPlan } from './exec-plan.ts';
import { followLog, isRunning, startOffsetOf } from './log-follow.ts';
import type { StreamSocket } from './spdy-socket.ts';

const OPEN = 1;
const CLOSE_NORMAL = 1000;

export interface AttachTarget {
  /** The node's podLogsDirectory. */
  dir: string;
  pod: Pod;
  /** The pod as it is now (for `running`), by uid. */
  current: () => Pod | undefined;
}

/** Serves `plan` (an attach) on `socket`. */
export async function serveAttach(socket: StreamSocket, plan: StreamPlan, t: AttachTarget): Promise<void> {
  const channel = plan.stdout ? STDOUT_CHANNEL : STDERR_CHANNEL;
  const send = (msg: Buffer) => {
    if (socket.readyState === OPEN) socket.send(msg, { binary: true });
  };
  const finish = (s: Parameters<typeof statusFrame>[0]) => {
    send(statusFrame(s));
    if (socket.readyState === OPEN) socket.close(CLOSE_NORMAL);
  };
  send(readyFrame(channel));
  const attempt = t.pod.status?.containerStatuses?.find((c) => c.name === plan.container)?.restartCount ?? 0;
  const raw = await readPodLogFile(t.dir, t.pod, plan.container, attempt);
  if (typeof raw !== 'string') return finish(execErrorStatus(raw.message ?? 'no log file'));
  if (socket.readyState !== OPEN) return;
  const follower = followLog({
    dir: t.dir,
    pod: t.pod,
    container: plan.container,
    attempt,
    first: '',
    startOffset: startOffsetOf(raw),
    opts: {},
    running: () => isRunning(t.current(), plan.container, attempt),
  });
  follower.on('data', (chunk: Buffer | string) => {
    for (const f of frames(channel, Buffer.from(chunk))) send(f);
  });
  follower.once('end', () => finish(successStatus()));
  follower.once('error', (e: Error) => finish(execErrorStatus(e.message)));
  socket.once('close', () => follower.destroy());
}
