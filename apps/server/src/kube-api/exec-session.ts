/**
 * One exec over an accepted WebSocket (exec-channel.ts's framing), on a runtime that runs a command to its
 * end with its stdin given whole (the simulated node's interpreter reads stdin as one string):
 *
 *   open ─▶ ready message ─▶ stdin read to its close signal (v5), or none asked ─▶ run ─▶ stdout, stderr
 *        ─▶ error channel Status (Success, NonZeroExitCode with the code, or InternalError) ─▶ close 1000
 *
 * Under v4 (no close signal) a command asked to read stdin starts at once with none. Stdin is capped at
 * MAX_STDIN_BYTES (past it: an InternalError Status saying so, the command not run); resize messages are
 * read and dropped (the simulated node has no terminal). A client that goes away before the command starts
 * cancels it; one that goes away later leaves the command to end (or time out) on the node. A shell asked
 * for with a tty and stdin (`kubectl exec -it <pod> -- sh`) is served as an interactive session instead.
 */
import type { ExecResult } from '../sim-control.ts';
import {
  ERROR_CHANNEL,
  type ErrorChannelStatus,
  execErrorStatus,
  exitCodeStatus,
  frames,
  readClientMessage,
  readyFrame,
  STDERR_CHANNEL,
  STDIN_CHANNEL,
  STDOUT_CHANNEL,
  STREAM_PROTOCOL_V5,
  statusFrame,
  successStatus,
} from './exec-channel.ts';
import type { ExecRunner, StreamPlan } from './exec-plan.ts';
import { isInteractiveShell, serveTtyShell } from './exec-tty.ts';
import type { StreamSocket } from './spdy-socket.ts';

/** The most stdin one exec reads on the simulated node. */
export const MAX_STDIN_BYTES = 32 * 1024;
/** How long a command may run: the kubelet's default streamingConnectionIdleTimeout (4 h). */
const EXEC_TIMEOUT_S = 4 * 60 * 60;

const OPEN = 1;
const CLOSE_NORMAL = 1000;

/** Serves `plan` (an exec) on `socket`, whose subprotocol was negotiated (v5 or v4). */
export function serveExec(socket: StreamSocket, plan: StreamPlan, run: ExecRunner): void {
  // a terminal never closes its stdin: a shell on a tty reads line by line instead (exec-tty.ts)
  if (plan.tty && plan.stdin && isInteractiveShell(plan.command)) {
    serveTtyShell(socket, plan, run);
    return;
  }
  const protocol = socket.protocol;
  const input: Buffer[] = [];
  let inputBytes = 0;
  let started = false;
  let done = false;

  const send = (msg: Buffer) => {
    if (socket.readyState === OPEN) socket.send(msg, { binary: true });
  };
  const finish = (s: ErrorChannelStatus) => {
    if (done) return;
    done = true;
    send(statusFrame(s));
    if (socket.readyState === OPEN) socket.close(CLOSE_NORMAL);
  };

  const execute = async (stdin: string) => {
    let r: ExecResult;
    try {
      r = await run(plan.containerId, plan.command, stdin, EXEC_TIMEOUT_S);
    } catch (e) {
      finish(execErrorStatus(e instanceof Error ? e.message : String(e)));
      return;
    }
    if (plan.stdout) for (const f of frames(STDOUT_CHANNEL, Buffer.from(r.stdout))) send(f);
    // under a tty the terminal shows both outputs on stdout
    const errTo = plan.tty ? (plan.stdout ? STDOUT_CHANNEL : -1) : plan.stderr ? STDERR_CHANNEL : -1;
    if (errTo >= 0) for (const f of frames(errTo, Buffer.from(r.stderr))) send(f);
    finish(r.exitCode === 0 ? successStatus() : exitCodeStatus(plan.command, r.exitCode));
  };

  const start = () => {
    if (started || done) return;
    started = true;
    void execute(Buffer.concat(input).toString('utf8'));
  };

  socket.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    if (started || done) return;
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    const m = readClientMessage(buf, protocol);
    if (m.kind === 'close' && m.channel === STDIN_CHANNEL) return start();
    if (m.kind !== 'data' || m.channel !== STDIN_CHANNEL || !plan.stdin) return;
    inputBytes += m.data.length;
    if (inputBytes > MAX_STDIN_BYTES)
      return finish(
        execErrorStatus(`stdin over ${MAX_STDIN_BYTES} bytes is more than the simulated node reads`),
      );
    input.push(m.data);
  });
  socket.on('close', () => {
    if (!started) done = true;
  });

  send(readyFrame(plan.stdout ? STDOUT_CHANNEL : plan.stderr ? STDERR_CHANNEL : ERROR_CHANNEL));
  if (!plan.stdin || protocol !== STREAM_PROTOCOL_V5) start();
}

/** What simExec needs of a simulated node in this process: its SimRuntime's execSync, which takes stdin. */
interface InProcessSim {
  runtime: {
    execSync(
      id: string,
      cmd: string[],
      timeout: number,
      stdin?: string,
    ): Promise<{ stdout: Buffer; stderr: Buffer; exit_code: number }>;
  };
}

/** The runner of a simulated node running in this process. */
export const simExec =
  (sim: InProcessSim): ExecRunner =>
  async (id, cmd, stdin, timeoutS) => {
    const r = await sim.runtime.execSync(id, cmd, timeoutS, stdin).catch((e: unknown) => {
      // a CriError's details are the runtime's own words, as the node process answers them
      const details = (e as { details?: unknown }).details;
      throw typeof details === 'string' ? new Error(details) : e;
    });
    return { stdout: r.stdout.toString(), stderr: r.stderr.toString(), exitCode: r.exit_code };
  };
