/**
 * `kubectl logs -f` from a client that stops reading, over a real socket: the server must hold the follower
 * at the file (backpressure), not read what a chatty container writes into its own memory.
 */
import { once } from 'node:events';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { LogFollower } from '../kube-api/log-follow.ts';
import { addRunningPod, FakeEngine, testPod, writeContainerLog } from '../testing.ts';

const UID = '0b4f1f0e-1111-4222-8333-444455556666';
const MB = 1024 * 1024;
/** What the server may hold for one paused reader: a read chunk, the stream's buffer, the socket's. */
const BOUND_BYTES = 2 * MB;

let tmp: string;
let file: string;
let app: FastifyInstance;
let followers: Promise<{ follower: LogFollower; res: ServerResponse }>;

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'logs-follow-'));
  file = writeContainerLog(join(tmp, 'pods'), 'chatty', UID);
  const clock = new FakeClock();
  const engine = new FakeEngine(clock);
  addRunningPod(engine, testPod('chatty', UID), '2026-01-01T12:00:00Z');
  app = await createHttpApp({
    engine,
    trace: new TraceRecorder(clock, 100),
    clock,
    podLogsDirectory: join(tmp, 'pods'),
  });
  followers = new Promise((resolve) => {
    app.addHook('onSend', async (_req, reply, payload) => {
      if (payload instanceof LogFollower) resolve({ follower: payload, res: reply.raw });
      return payload;
    });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
});
afterEach(async () => {
  app.server.closeAllConnections();
  await app.close();
  rmSync(tmp, { recursive: true, force: true });
});

let written = 0;
/** The container writes `mb` MiB of numbered lines. */
function chatter(mb: number): void {
  const pad = 'x'.repeat(80);
  for (let i = 0; i < mb; i++) {
    let chunk = '';
    while (chunk.length < MB) chunk += `2026-01-01T12:00:00.000000000Z stdout F line-${++written} ${pad}\n`;
    appendFileSync(file, chunk);
  }
}

/** Resolves once the follower has looked at the file after it reached `size` (read to it, or held). */
async function settled(f: LogFollower, size: number): Promise<void> {
  await once(f, 'poll');
  while (!f.held && f.readOffset < size) await once(f, 'poll');
}

it('holds a follower whose client does not read at the file: bounded server memory, then every line', async () => {
  const { port } = app.server.address() as AddressInfo;
  const req = request({
    host: '127.0.0.1',
    port,
    path: '/api/v1/namespaces/default/pods/chatty/log?follow=true',
  });
  // the response is not read from (no 'data' listener) until the end: the client's socket stops reading
  const response = once(req, 'response') as Promise<[IncomingMessage]>;
  req.end();
  const { follower, res: out } = await followers;
  const buffered = () => follower.readableLength + out.writableLength + (out.socket?.writableLength ?? 0);

  chatter(24);
  await settled(follower, statSync(file).size);
  expect(buffered()).toBeLessThan(BOUND_BYTES);
  expect(follower.held).toBe(true);
  const heldAt = follower.readOffset;

  chatter(24);
  await once(follower, 'poll');
  await once(follower, 'poll');
  expect(follower.readOffset).toBe(heldAt); // nothing more read while the client reads nothing
  expect(buffered()).toBeLessThan(BOUND_BYTES);

  // the client reads again: it gets every line, in order, and the follower reaches the end of the file
  const [res] = await response;
  const last = written;
  let next = 1;
  let tail = '';
  const all = new Promise<void>((resolve, reject) => {
    res.setEncoding('utf8');
    res.on('data', (d: string) => {
      const lines = (tail + d).split('\n');
      tail = lines.pop() ?? '';
      for (const l of lines) {
        const n = Number(/^line-(\d+) /.exec(l)?.[1]);
        if (n !== next) reject(new Error(`line ${n} where line ${next} was due`));
        next++;
      }
      if (next > last) resolve();
    });
  });
  res.resume();
  await all;
  expect(follower.readOffset).toBe(statSync(file).size);
  req.destroy();
});
