/**
 * A pod's exec over a real WebSocket against a token-guarded server (buildApp on the simulated node process):
 * the channels as a client reads them under v4 and v5, stdin to its close signal, a tty carrying stderr on
 * stdout, stdin past its cap, and the refusals before the upgrade (no token, no protocol served).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V5 } from './exec-channel.ts';
import { MAX_STDIN_BYTES } from './exec-session.ts';
import { type ShellServer, startShellServer } from './exec-testing.ts';

const TOKEN = 'exec-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };
let server: ShellServer;
let wsBase: string;

beforeAll(async () => {
  server = await startShellServer(TOKEN, '00000000-0000-4000-8000-00000000e7ec');
  wsBase = server.base.replace('http', 'ws');
}, 90_000);

afterAll(async () => {
  await server?.close();
});

interface Session {
  /** Every message the server sent, in order, until it closed. */
  messages: Promise<Buffer[]>;
  socket: WebSocket;
  opened: Promise<void>;
}

const url = (query: string) => `${wsBase}/api/v1/namespaces/default/pods/shell/exec?${query}`;

function open(query: string, protocol = STREAM_PROTOCOL_V5): Session {
  const socket = new WebSocket(url(query), [protocol], { headers: auth });
  const got: Buffer[] = [];
  socket.on('message', (m: Buffer) => got.push(Buffer.from(m)));
  return {
    socket,
    opened: new Promise((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    }),
    messages: new Promise((resolve) => socket.once('close', () => resolve(got))),
  };
}

const channel = (msgs: Buffer[], n: number) =>
  Buffer.concat(msgs.filter((m) => m[0] === n).map((m) => m.subarray(1))).toString();

/** The answer to an upgrade the server refused: its status code and body. */
function refused(u: string, protocols: string[], headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = new WebSocket(u, protocols, { headers });
    socket.once('open', () => reject(new Error('the upgrade was taken')));
    socket.once('error', () => {});
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('exec over a WebSocket', () => {
  it('v4: stdout and stderr on their channels, then the exit code on the error channel', async () => {
    const q = 'command=sh&command=-c&command=echo%20out;%20echo%20err%20>%262;%20exit%202&stdout=1&stderr=1';
    const s = open(q, STREAM_PROTOCOL_V4);
    const msgs = await s.messages;
    expect(msgs[0]).toEqual(Buffer.of(1));
    expect(channel(msgs, 1)).toBe('out\n');
    expect(channel(msgs, 2)).toBe('err\n');
    expect(JSON.parse(channel(msgs, 3))).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '2' }] },
    });
  });

  it('v5: stdin up to its close signal, then Success', async () => {
    const s = open('command=cat&stdin=true&stdout=true');
    await s.opened;
    s.socket.send(Buffer.from('\x00one\n'));
    s.socket.send(Buffer.from('\x00two\n'));
    s.socket.send(Buffer.of(4, ...Buffer.from('{"Width":80,"Height":24}')));
    s.socket.send(Buffer.of(255, 0));
    const msgs = await s.messages;
    expect(channel(msgs, 1)).toBe('one\ntwo\n');
    expect(channel(msgs, 3)).toBe('{"metadata":{},"status":"Success"}');
  });

  it('a tty carries stderr on stdout', async () => {
    const q = 'command=sh&command=-c&command=echo%20err%20>%262&stdout=1&stderr=1&tty=1';
    const msgs = await open(q).messages;
    expect(channel(msgs, 1)).toBe('err\n');
    expect(channel(msgs, 2)).toBe('');
  });

  it('stdin past the cap ends the exec with an InternalError, the command not run', async () => {
    const s = open('command=cat&stdin=1&stdout=1');
    await s.opened;
    s.socket.send(Buffer.concat([Buffer.of(0), Buffer.alloc(MAX_STDIN_BYTES + 1, 'x')]));
    const msgs = await s.messages;
    expect(channel(msgs, 1)).toBe('');
    expect(JSON.parse(channel(msgs, 3))).toMatchObject({ reason: 'InternalError', code: 500 });
  });

  it('refuses before the upgrade: no token (401), no protocol it serves (400)', async () => {
    const q = 'command=true&stdout=1';
    expect(await refused(url(q), [STREAM_PROTOCOL_V5], {})).toMatchObject({ status: 401 });
    const other = await refused(url(q), ['channel.k8s.io'], auth);
    expect(other.status).toBe(400);
    expect(JSON.parse(other.body).message).toBe(
      'requested protocol(s) are not supported: [channel.k8s.io]; supports [v5.channel.k8s.io v4.channel.k8s.io]',
    );
  });
});
