/**
 * An interactive shell over an exec that asks for a tty and stdin (`kubectl exec -it <pod> -- sh`) on the
 * simulated node, whose interpreter runs a script to its end and reads no terminal. The session plays both
 * the terminal's line discipline (cooked mode: kubectl puts the local terminal in raw mode, so the remote
 * tty echoes) and the shell's read-eval loop:
 *
 *   open ─▶ ready message ─▶ the shell checked (`<sh> -c :`; not there: InternalError Status) ─▶ prompt
 *        ─▶ keys read as they arrive: echoed, backspace erases, Ctrl-C drops the line, a line ends at \r or \n
 *        ─▶ the line run as `<sh> -c <line>`, its stdout then its stderr (the node returns them apart, so
 *           their interleaving is lost) on stdout with \r\n line ends ─▶ prompt …
 *        ─▶ `exit [n]` (or Ctrl-D on an empty line, or stdin's close signal): the error channel's Status
 *           (Success, or NonZeroExitCode with the code) ─▶ close 1000
 *
 * Each line is its own ExecSync on the node: variables, `cd` and background jobs do not outlive their line
 * (the interpreter keeps no working directory: every line runs at `/`, as a non-interactive exec does).
 * Whether a line ran `exit` is read from a status mark the script prints to stderr after the line, which
 * an exit skips. Resize messages are read and dropped. Typed input waits while a line runs, up to
 * MAX_PENDING_BYTES (past it: an InternalError Status); a line keeps at most MAX_LINE_CHARS, as a tty's
 * input buffer does.
 */
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import {
  ERROR_CHANNEL,
  execErrorStatus,
  exitCodeStatus,
  frames,
  readClientMessage,
  readyFrame,
  STDIN_CHANNEL,
  STDOUT_CHANNEL,
  statusFrame,
  successStatus,
} from './exec-channel.ts';
import type { ExecRunner, StreamPlan } from './exec-plan.ts';
import type { StreamSocket } from './spdy-socket.ts';

/** busybox ash's prompt for root at `/`. */
export const PROMPT = '/ # ';
/** The most typed input held while a line runs. */
const MAX_PENDING_BYTES = 32 * 1024;
/** The most characters of one line (a tty's canonical input buffer, N_TTY_BUF_SIZE, less its newline). */
const MAX_LINE_CHARS = 4095;
/** How long one line may run: the kubelet's default streamingConnectionIdleTimeout (4 h). */
const LINE_TIMEOUT_S = 4 * 60 * 60;
const CTRL_C = '\x03';
const CTRL_D = '\x04';
const BACKSPACE = '\x7f';
const CTRL_H = '\b';
const ESC = '\x1b';
const OPEN = 1;
const CLOSE_NORMAL = 1000;
/** The shells whose interactive form this session stands in for. */
const SHELLS = new Set(['sh', 'ash', 'bash']);

/** Whether `cmd` starts an interactive shell: a shell with only option flags (no `-c`, no script). */
export function isInteractiveShell(cmd: readonly string[]): boolean {
  const name = (cmd[0] ?? '').split('/').pop() ?? '';
  return SHELLS.has(name) && cmd.slice(1).every((a) => /^-[a-z]+$/.test(a) && !a.includes('c'));
}

/** What the line discipline makes of typed characters. */
export type TtyEvent =
  | { kind: 'echo'; text: string }
  | { kind: 'line'; line: string }
  | { kind: 'interrupt' }
  | { kind: 'eof' };

/**
 * A tty's cooked-mode input: characters in, echo and complete lines out. Pure state, no I/O. It stops at
 * each line, interrupt or end of input; `rest` is what is left to read after it.
 */
export class LineDiscipline {
  private line = '';
  private afterCR = false;
  private inEscape = false;

  /** Reads `input` up to the first line, interrupt or end; the events and the unread rest. */
  read(input: string): { events: TtyEvent[]; rest: string } {
    const events: TtyEvent[] = [];
    const echo = (text: string) => events.push({ kind: 'echo', text });
    let i = 0;
    while (i < input.length) {
      const ch = input[i++] as string;
      const afterCR = this.afterCR;
      this.afterCR = false;
      if (this.inEscape) {
        // an escape sequence (arrow keys and the like): ESC, then [ or O, then up to a final byte
        if (ch !== '[' && ch !== 'O' && !/[0-9;]/.test(ch)) this.inEscape = false;
        continue;
      }
      if (ch === ESC) this.inEscape = true;
      else if (ch === '\r' || ch === '\n') {
        // a terminal sends \r; a client sending \r\n has one line, not two
        if (ch === '\n' && afterCR) continue;
        this.afterCR = ch === '\r';
        echo('\r\n');
        events.push({ kind: 'line', line: this.line });
        this.line = '';
        return { events, rest: input.slice(i) };
      } else if (ch === CTRL_C) {
        echo('^C\r\n');
        this.line = '';
        events.push({ kind: 'interrupt' });
        return { events, rest: input.slice(i) };
      } else if (ch === CTRL_D) {
        if (this.line !== '') continue;
        events.push({ kind: 'eof' });
        return { events, rest: input.slice(i) };
      } else if (ch === BACKSPACE || ch === CTRL_H) {
        if (this.line === '') continue;
        this.line = [...this.line].slice(0, -1).join('');
        echo('\b \b');
      } else if (ch >= ' ' && this.line.length < MAX_LINE_CHARS) {
        this.line += ch;
        echo(ch);
      }
    }
    return { events, rest: '' };
  }
}

/** A line's result: the shell went on with `status`, or it exited with `exitCode`. */
export type LineOutcome = { output: string; status: number } | { output: string; exitCode: number };

/** The script that runs `line` and then prints `mark` and the line's status to stderr. */
export const markedScript = (line: string, mark: string): string => `${line}\nprintf '${mark}%d' "$?" >&2`;

/** Reads a line's run: its output (stdout then stderr, the mark taken out) and whether it exited. Pure. */
export function readOutcome(
  r: { stdout: string; stderr: string; exitCode: number },
  mark: string,
): LineOutcome {
  const m = new RegExp(`${mark}(\\d+)$`).exec(r.stderr);
  if (m) return { output: r.stdout + r.stderr.slice(0, m.index), status: Number(m[1]) };
  const output = r.stdout + r.stderr;
  // a line the shell cannot parse never reaches the mark; an interactive shell says so and goes on
  if (r.exitCode === 2 && r.stderr.startsWith('sh: syntax error')) return { output, status: 2 };
  return { output, exitCode: r.exitCode };
}

/** Serves `plan` (an exec of an interactive shell with a tty and stdin) on `socket`. */
export function serveTtyShell(socket: StreamSocket, plan: StreamPlan, run: ExecRunner): void {
  const shell = plan.command[0] as string;
  const mark = `__tty_status_${randomBytes(8).toString('hex')}__`;
  const tty = new LineDiscipline();
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let busy = true;
  let done = false;

  const send = (msg: Buffer) => {
    if (socket.readyState === OPEN) socket.send(msg, { binary: true });
  };
  const write = (text: string) => {
    if (plan.stdout) for (const f of frames(STDOUT_CHANNEL, Buffer.from(text))) send(f);
  };
  const finish = (s: Parameters<typeof statusFrame>[0]) => {
    if (done) return;
    done = true;
    send(statusFrame(s));
    if (socket.readyState === OPEN) socket.close(CLOSE_NORMAL);
  };
  const exit = (code: number) => finish(code === 0 ? successStatus() : exitCodeStatus(plan.command, code));
  let lastStatus = 0;

  const runLine = async (line: string) => {
    let r: Awaited<ReturnType<ExecRunner>>;
    try {
      r = await run(plan.containerId, [shell, '-c', markedScript(line, mark)], '', LINE_TIMEOUT_S);
    } catch (e) {
      return finish(execErrorStatus(e instanceof Error ? e.message : String(e)));
    }
    const o = readOutcome(r, mark);
    write(o.output.replace(/\n/g, '\r\n'));
    if ('exitCode' in o) return exit(o.exitCode);
    lastStatus = o.status;
    write(PROMPT);
    busy = false;
    pump();
  };

  /** Reads pending input until a line is to run or none is left. */
  const pump = () => {
    while (!busy && !done && pending !== '') {
      const { events, rest } = tty.read(pending);
      pending = rest;
      for (const ev of events) {
        if (ev.kind === 'echo') write(ev.text);
        else if (ev.kind === 'interrupt') write(PROMPT);
        else if (ev.kind === 'eof') {
          write('\r\n');
          return exit(lastStatus);
        } else if (ev.line.trim() === '') write(PROMPT);
        else {
          busy = true;
          void runLine(ev.line);
        }
      }
    }
  };

  socket.on('message', (raw: Buffer | ArrayBuffer | Buffer[]) => {
    if (done) return;
    const buf = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    const m = readClientMessage(buf, socket.protocol);
    if (m.kind === 'close' && m.channel === STDIN_CHANNEL) {
      pending += CTRL_D;
      return pump();
    }
    if (m.kind !== 'data' || m.channel !== STDIN_CHANNEL) return;
    pending += decoder.write(m.data);
    if (Buffer.byteLength(pending) > MAX_PENDING_BYTES)
      return finish(execErrorStatus(`input over ${MAX_PENDING_BYTES} bytes waiting for a line to end`));
    pump();
  });
  socket.on('close', () => {
    done = true;
  });

  send(readyFrame(plan.stdout ? STDOUT_CHANNEL : ERROR_CHANNEL));
  // the shell is there (a missing one fails as the non-interactive exec does) before the first prompt
  run(plan.containerId, [shell, '-c', ':'], '', LINE_TIMEOUT_S).then(
    () => {
      write(PROMPT);
      busy = false;
      pump();
    },
    (e: unknown) => finish(execErrorStatus(e instanceof Error ? e.message : String(e))),
  );
}
