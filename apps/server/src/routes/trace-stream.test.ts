import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import type { StreamMessage } from './trace-stream.ts';

let app: FastifyInstance;
let trace: TraceRecorder;

beforeEach(async () => {
  const clock = new FakeClock();
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine: new FakeEngine(clock), trace, clock });
  await app.ready();
});
afterEach(() => app.close());

const record = (n: number) => {
  for (let i = 0; i < n; i++)
    trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 0, restarted: 0 });
};

/** Collects messages; `until` resolves when the predicate holds over everything received so far. */
function collect(ws: WebSocket) {
  const messages: StreamMessage[] = [];
  const waiters: { pred: () => boolean; resolve: () => void }[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as StreamMessage);
    for (const w of [...waiters]) if (w.pred()) w.resolve();
  });
  const seqs = () =>
    messages.flatMap((m) => (m.kind === 'events' ? m.events.map((e: TraceEvent) => e.seq) : []));
  const until = (pred: () => boolean) =>
    new Promise<void>((resolve) => {
      if (pred()) return resolve();
      waiters.push({ pred, resolve });
    });
  return { messages, seqs, until };
}

describe('WebSocket /api/v1/trace/stream', () => {
  it('sends the backlog after ?since=, then live events, in seq order without gaps', async () => {
    record(3);
    const { ws, c } = await connect('/api/v1/trace/stream?since=1');
    await c.until(() => c.seqs().length >= 2);
    record(2);
    await c.until(() => c.seqs().length >= 4);
    expect(c.seqs()).toEqual([2, 3, 4, 5]);
    expect(c.messages.every((m) => m.kind === 'events')).toBe(true);
    ws.terminate();
  });

  it('batches a burst into messages of at most 500 events', async () => {
    const { ws, c } = await connect('/api/v1/trace/stream');
    record(900);
    await c.until(() => c.seqs().length >= 900);
    expect(c.seqs()).toEqual(Array.from({ length: 900 }, (_, i) => i + 1));
    expect(c.messages.length).toBeGreaterThanOrEqual(2);
    expect(c.messages.every((m) => m.kind === 'events' && m.events.length <= 500)).toBe(true);
    ws.terminate();
  });

  it('tells a client whose events the ring dropped to resync, and closes it', async () => {
    record(1);
    const { ws, c } = await connect('/api/v1/trace/stream');
    await c.until(() => c.seqs().length === 1);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    record(1500); // capacity 1000: seq 2..501 are gone before the next flush
    await c.until(() => c.messages.some((m) => m.kind === 'resync'));
    expect(c.messages.at(-1)).toMatchObject({ kind: 'resync' });
    expect(await closed).toBe(4000);
  });

  it('asks for a resync at once when ?since= is older than the ring', async () => {
    record(1500);
    const { c } = await connect('/api/v1/trace/stream?since=10');
    await c.until(() => c.messages.length > 0);
    expect(c.messages[0]).toMatchObject({ kind: 'resync' });
  });

  it('closes a stream over the per-address cap with 1013 naming it', async () => {
    await restartWith({ maxStreams: 10, maxStreamsPerAddress: 2 });
    await connect('/api/v1/trace/stream');
    await connect('/api/v1/trace/stream');
    const third = (await connect('/api/v1/trace/stream')).ws;
    expect(await closeOf(third)).toEqual({
      code: 1013,
      reason: 'too many trace streams from one address (cap per address: 2)',
    });
  });

  it('closes a stream over the total cap with 1013 naming it', async () => {
    await restartWith({ maxStreams: 2, maxStreamsPerAddress: 10 });
    await connect('/api/v1/trace/stream');
    await connect('/api/v1/trace/stream');
    const third = (await connect('/api/v1/trace/stream')).ws;
    expect(await closeOf(third)).toEqual({ code: 1013, reason: 'too many trace streams (cap in total: 2)' });
  });

  it('sends a backlog larger than the socket water mark whole, in order, in pages', async () => {
    // 900 events of ~1.5 KiB: several times SEND_WATER_BYTES, so the client is parked and woken on drain
    for (let i = 0; i < 900; i++) trace.record({ type: 'sim.fault', fault: 'f', detail: 'x'.repeat(1500) });
    const { ws, c } = await connect('/api/v1/trace/stream?since=0');
    await c.until(() => c.seqs().length >= 900);
    expect(c.seqs()).toEqual(Array.from({ length: 900 }, (_, i) => i + 1));
    expect(c.messages.every((m) => m.kind === 'events' && m.events.length <= 500)).toBe(true);
    ws.terminate();
  });

  it('with ?podUID= sends only that pod’s events and the node-wide ones, backlog then live', async () => {
    const status = (podUID: string) =>
      trace.record({
        type: 'sync.start',
        workType: 'SyncPod',
        updateType: 'SyncPodSync',
        podUID,
        pod: `default/${podUID}`,
      });
    status('a');
    record(700); // more than a page of other events between the pod's
    status('b');
    status('a');
    trace.record({ type: 'sim.fault', fault: 'runtime-down', detail: '' });
    const { ws, c } = await connect('/api/v1/trace/stream?since=0&podUID=a');
    await c.until(() => c.seqs().length >= 3);
    record(600);
    status('a');
    await c.until(() => c.seqs().length >= 4);
    const events = c.messages.flatMap((m) => (m.kind === 'events' ? m.events : []));
    expect(events.map((e) => e.type)).toEqual(['sync.start', 'sync.start', 'sim.fault', 'sync.start']);
    expect(events.every((e) => e.type === 'sim.fault' || ('podUID' in e && e.podUID === 'a'))).toBe(true);
    expect(c.seqs()).toEqual([...c.seqs()].sort((x, y) => x - y));
    ws.terminate();
  });

  it('refuses a ?podUID= that is not a UID with a 400 naming it', async () => {
    const bad = await app.inject({ url: '/api/v1/trace/stream?podUID=%20x%2F', headers: wsHeaders() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.causes[0].field).toBe('podUID');
  });

  it('refuses a bad ?since= and a foreign Origin before upgrading', async () => {
    const bad = await app.inject({ url: '/api/v1/trace/stream?since=abc', headers: wsHeaders() });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details.causes[0].field).toBe('since');
    const foreign = await app.inject({
      url: '/api/v1/trace/stream',
      headers: { ...wsHeaders(), host: 'localhost:8080', origin: 'http://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().reason).toBe('Forbidden');
  });
});

async function restartWith(limits: { maxStreams: number; maxStreamsPerAddress: number }) {
  await app.close();
  const clock = new FakeClock();
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine: new FakeEngine(clock), trace, clock, limits });
  await app.ready();
}

function closeOf(ws: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
}

/** Opens the stream with the collector attached before the first message can arrive. */
async function connect(path: string) {
  let c: ReturnType<typeof collect> | undefined;
  const ws = await app.injectWS(
    path,
    {},
    {
      onInit: (w) => {
        c = collect(w);
      },
    },
  );
  return { ws, c: c as ReturnType<typeof collect> };
}

function wsHeaders() {
  return {
    connection: 'upgrade',
    upgrade: 'websocket',
    'sec-websocket-version': '13',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  };
}
