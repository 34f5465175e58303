/**
 * Exec over a SPDY/3.1 upgrade against a token-guarded server (buildApp on the simulated node process),
 * spoken byte for byte as remotecommand's v4 client does over node:net: the 101 and its headers, one stream
 * per channel, stdin to its FIN, the exit code on the error stream, a stream of an unknown type reset; and
 * the refusals before any upgrade (no token, no protocol, none served).
 */
import { connect, type Socket } from 'node:net';
import { constants, createDeflate } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test/support/until.ts';
import { type ShellServer, startShellServer } from './exec-testing.ts';
import { dataFrame, FLAG_FIN, FrameReader, TYPE_RST_STREAM } from './port-forward-spdy.ts';

const TOKEN = 'spdy-exec-token-0123456789abcdef';
const EXEC = '/api/v1/namespaces/default/pods/shell/exec';
let server: ShellServer;
let port: number;

beforeAll(async () => {
  server = await startShellServer(TOKEN, '00000000-0000-4000-8000-0000005bd7ec');
  port = Number(new URL(server.base).port);
}, 90_000);

afterAll(async () => {
  await server?.close();
});

/** What one SPDY connection received: the HTTP head, then each stream's bytes, FINs and resets. */
interface Conn {
  head: Promise<string>;
  socket: Socket;
  /** Opens a stream (SYN_STREAM) with `streamType`; its id, once the frame is written. */
  open(streamType: string): Promise<number>;
  data: Map<number, Buffer>;
  fins: Set<number>;
  resets: Set<number>;
  /** What followed the head of a refusal (not a 101). */
  body: () => string;
  closed: Promise<void>;
}

/** POSTs `target` on a fresh connection with the SPDY upgrade headers (and the token unless `token` is ''). */
function upgrade(at: number, target: string, protocols: string[], token = TOKEN): Conn {
  const socket = connect(at, '127.0.0.1');
  const lines = [
    `POST ${target} HTTP/1.1`,
    `Host: 127.0.0.1:${at}`,
    'Connection: Upgrade',
    'Upgrade: SPDY/3.1',
  ];
  for (const p of protocols) lines.push(`X-Stream-Protocol-Version: ${p}`);
  if (token) lines.push(`Authorization: Bearer ${token}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const reader = new FrameReader();
  const deflate = createDeflate();
  let nextId = 1;
  let buf = Buffer.alloc(0);
  let headDone = false;
  let switched = false;
  let body = '';
  let gotHead: (h: string) => void = () => undefined;
  const c: Conn = {
    head: new Promise((r) => (gotHead = r)),
    socket,
    data: new Map(),
    fins: new Set(),
    resets: new Set(),
    body: () => body,
    closed: new Promise((r) => socket.once('close', () => r())),
    open: (streamType) => {
      let resolve: (id: number) => void = () => undefined;
      const promise = new Promise<number>((r) => (resolve = r));
      const id = nextId;
      nextId += 2;
      const names = [
        ['streamtype', streamType],
        ['x-test', 'yes'],
      ];
      const block = [Buffer.alloc(4)];
      block[0]?.writeUInt32BE(names.length);
      for (const s of names.flat()) {
        const len = Buffer.alloc(4);
        len.writeUInt32BE(Buffer.byteLength(s));
        block.push(len, Buffer.from(s));
      }
      deflate.write(Buffer.concat(block));
      deflate.flush(constants.Z_SYNC_FLUSH, () => {
        const packed = deflate.read() as Buffer;
        const payload = Buffer.concat([Buffer.alloc(10), packed]);
        payload.writeUInt32BE(id, 0);
        const frame = Buffer.concat([Buffer.alloc(8), payload]);
        frame.writeUInt32BE(0x80030001, 0);
        frame.writeUInt32BE(payload.length, 4);
        socket.write(frame, () => resolve(id));
      });
      return promise;
    },
  };
  socket.on('data', (d: Buffer) => {
    if (!headDone) {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      headDone = true;
      const head = buf.subarray(0, end + 4).toString('latin1');
      switched = head.startsWith('HTTP/1.1 101 ');
      gotHead(head);
      d = buf.subarray(end + 4);
    }
    if (!switched) {
      body += d.toString();
      return;
    }
    const frames = reader.push(d);
    if ('error' in frames) throw new Error(frames.error);
    for (const f of frames) {
      if (f.control) {
        if (f.type === TYPE_RST_STREAM) c.resets.add(f.payload.readUInt32BE(0));
        continue;
      }
      c.data.set(f.streamId, Buffer.concat([c.data.get(f.streamId) ?? Buffer.alloc(0), f.payload]));
      if (f.flags & FLAG_FIN) c.fins.add(f.streamId);
    }
  });
  socket.on('end', () => socket.end());
  return c;
}

/** Opens a stream of each type, in order, as remotecommand's client does; their ids. */
async function openAll(c: Conn, types: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const t of types) ids.push(await c.open(t));
  return ids;
}

const text = (c: Conn, id: number | undefined) =>
  id === undefined ? '' : (c.data.get(id)?.toString() ?? '');
const untilFin = (c: Conn, ids: (number | undefined)[]) =>
  until(
    'the server to end its streams',
    async () => ids.every((id) => id !== undefined && c.fins.has(id)) || undefined,
    10_000,
    10,
  );

describe('exec over SPDY/3.1', () => {
  it('stdin to its FIN, stdout back, Success on the error stream; every stream ended', async () => {
    const c = upgrade(port, `${EXEC}?command=cat&stdin=true&stdout=true&stderr=true`, [
      'v4.channel.k8s.io',
      'v3.channel.k8s.io',
    ]);
    const head = await c.head;
    expect(head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(head).toContain('Upgrade: SPDY/3.1\r\n');
    expect(head).toContain('X-Stream-Protocol-Version: v4.channel.k8s.io\r\n');
    const [error, stdin = 0, stdout, stderr] = await openAll(c, ['error', 'stdin', 'stdout', 'stderr']);
    c.socket.write(dataFrame(stdin, Buffer.from('one\ntwo\n')));
    c.socket.write(dataFrame(stdin, Buffer.alloc(0), true));
    await untilFin(c, [error, stdout, stderr]);
    expect(text(c, stdout)).toBe('one\ntwo\n');
    expect(text(c, stderr)).toBe('');
    expect(JSON.parse(text(c, error))).toEqual({ metadata: {}, status: 'Success' });
    c.socket.end();
    await c.closed;
  });

  it("the command's exit code on the error stream, as v4 carries it; an unknown stream type is reset", async () => {
    const q = 'command=sh&command=-c&command=echo%20err%20>%262;%20exit%203&stdout=1&stderr=1';
    const c = upgrade(port, `${EXEC}?${q}`, ['v4.channel.k8s.io']);
    await c.head;
    const odd = await c.open('toString');
    const [error, stdout, stderr] = await openAll(c, ['error', 'stdout', 'stderr']);
    await untilFin(c, [error, stdout, stderr]);
    expect(c.resets).toEqual(new Set([odd]));
    expect(text(c, stderr)).toBe('err\n');
    expect(JSON.parse(text(c, error))).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    c.socket.end();
  });

  it('refuses before the upgrade: no token, no protocol, none served', async () => {
    const q = `${EXEC}?command=true&stdout=1`;
    const noToken = upgrade(port, q, ['v4.channel.k8s.io'], '');
    expect(await noToken.head).toMatch(/^HTTP\/1\.1 401 /);
    const none = upgrade(port, q, []);
    expect(await none.head).toMatch(/^HTTP\/1\.1 400 /);
    await until('the refusal', async () => none.body().includes('\n') || undefined, 10_000, 10);
    expect(none.body()).toContain('unable to upgrade: X-Stream-Protocol-Version is required');
    const old = upgrade(port, q, ['v2.channel.k8s.io', 'channel.k8s.io']);
    const head = await old.head;
    expect(head).toMatch(/^HTTP\/1\.1 403 /);
    expect(head).toMatch(/\r\nx-accepted-stream-protocol-versions: v4\.channel\.k8s\.io\r\n/i);
    for (const c of [noToken, none, old]) c.socket.destroy();
  });
});
