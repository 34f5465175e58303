/**
 * `kubectl exec -it <pod> -- sh` on the simulated node, over a real WebSocket against a token-guarded server
 * (buildApp): the prompt, typed keys echoed as a cooked-mode tty echoes them, each line run as it ends,
 * backspace and Ctrl-C, and the session's end (`exit n`, Ctrl-D) reported on the error channel.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V5 } from './exec-channel.ts';
import { type ShellServer, startShellServer } from './exec-testing.ts';
import { PROMPT } from './exec-tty.ts';

const TOKEN = 'exec-tty-token-0123456789abcdef';
/** How long a prompt or an output may take: the shell answers at once, a hang fails fast. */
const ANSWER_MS = 5_000;
/** How long one case may take, its session included. */
const CASE_MS = 15_000;
let server: ShellServer;
let wsBase: string;

beforeAll(async () => {
  server = await startShellServer(TOKEN, '00000000-0000-4000-8000-0000000077e1');
  wsBase = server.base.replace('http', 'ws');
}, 90_000);

/** The terminals a case opened; a case that fails leaves none open. */
const opened: WebSocket[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.terminate();
});

afterAll(async () => {
  await server?.close();
});

/** A terminal on an exec: what it typed goes on stdin, what it shows is stdout. */
class Terminal {
  private shown = '';
  /** The screen's length when keys were last typed: what is awaited comes after it. */
  private typedAt = 0;
  private waiters: (() => void)[] = [];
  readonly socket: WebSocket;
  /** The error channel's Status once the server closed. */
  readonly status: Promise<Record<string, unknown>>;

  constructor(command: string, protocol = STREAM_PROTOCOL_V5) {
    const q = `command=${command}&stdin=true&stdout=true&tty=true`;
    this.socket = new WebSocket(`${wsBase}/api/v1/namespaces/default/pods/shell/exec?${q}`, [protocol], {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    opened.push(this.socket);
    let error = '';
    this.socket.on('message', (m: Buffer) => {
      if (m[0] === 1) this.shown += m.subarray(1).toString();
      if (m[0] === 3) error += m.subarray(1).toString();
      for (const w of this.waiters) w();
    });
    this.status = new Promise((resolve) =>
      this.socket.once('close', () => resolve(error === '' ? {} : JSON.parse(error))),
    );
  }

  /** The screen so far. */
  get screen(): string {
    return this.shown;
  }

  /** Waits until the screen, grown since the last keys were typed, ends with `tail`; fails after ANSWER_MS. */
  shows(tail: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`the screen did not end with ${JSON.stringify(tail)}: ${JSON.stringify(this.shown)}`),
          ),
        ANSWER_MS,
      );
      const check = () => {
        if (this.shown.length <= this.typedAt || !this.shown.endsWith(tail)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      this.waiters.push(check);
      check();
    });
  }

  type(keys: string): void {
    this.typedAt = this.shown.length;
    this.socket.send(Buffer.concat([Buffer.of(0), Buffer.from(keys)]));
  }
}

describe('exec -it sh on the simulated node', () => {
  it(
    'prompts, runs each line as it is typed, and ends with the exit code of `exit 3`',
    async () => {
      const t = new Terminal('sh');
      await t.shows(PROMPT);
      t.type('echo hi\r');
      await t.shows(`echo hi\r\nhi\r\n${PROMPT}`);
      t.type('echo out; echo err >&2; hostname\r');
      await t.shows(PROMPT);
      // the node returns a line's stdout and stderr apart: stdout first
      expect(t.screen).toContain('hostname\r\nout\r\nshell\r\nerr\r\n');
      t.socket.send(Buffer.of(4, ...Buffer.from('{"Width":120,"Height":40}')));
      t.type('exit 3\r');
      expect(await t.status).toMatchObject({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      });
    },
    CASE_MS,
  );

  it(
    'erases with backspace, drops the line on Ctrl-C, goes on after a syntax error',
    async () => {
      const t = new Terminal('/bin/sh', STREAM_PROTOCOL_V4);
      await t.shows(PROMPT);
      t.type('echo hx\x7fi\r');
      await t.shows(`echo hx\b \bi\r\nhi\r\n${PROMPT}`);
      t.type('echo never\x03');
      await t.shows(`echo never^C\r\n${PROMPT}`);
      t.type('echo "open\r');
      await t.shows(PROMPT);
      expect(t.screen).toContain('sh: syntax error');
      expect(t.screen).not.toContain('never\r\n');
      t.type('exit\r');
      expect(await t.status).toEqual({ metadata: {}, status: 'Success' });
    },
    CASE_MS,
  );

  it(
    'Ctrl-D on an empty line ends the shell with the status of its last command',
    async () => {
      const t = new Terminal('sh');
      await t.shows(PROMPT);
      t.type('false\r');
      await t.shows(`false\r\n${PROMPT}`);
      t.type('\x04');
      expect(await t.status).toMatchObject({ details: { causes: [{ message: '1' }] } });
    },
    CASE_MS,
  );

  it(
    'a shell the container does not have ends the exec with an InternalError',
    async () => {
      const t = new Terminal('bash');
      expect(await t.status).toMatchObject({ reason: 'InternalError', code: 500 });
      expect(t.screen).toBe('');
    },
    CASE_MS,
  );
});
