/**
 * Trace-stream readers in a process of their own, so their JSON parsing does not delay the measurements of
 * the process that starts them (flood e2e, bench P4): `tsx test/support/stream-clients.ts <ws-url> <count>
 * [addresses]`.
 *
 * Opens `count` WebSockets to the URL at once, spread round-robin over the comma-separated local addresses
 * (any 127.x.y.z works on Linux loopback), and prints "ready" once every one is open. Each client checks that
 * seqs arrive one after another from the URL's `since` + 1. On the stdin line "end <seq>" it waits until every
 * client has seen that seq (or is done for good, or 45 s pass), then prints one JSON line, a ClientsReport.
 * The clients stay open until stdin ends, then the process exits.
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { percentile } from './stats.ts';

export interface ClientsReport {
  /** Clients that saw every seq up to the wanted one, in order. */
  complete: number;
  /** Per client that was not complete: why. */
  problems: string[];
  /** Milliseconds from the first connect to the report. */
  ms: number;
  /** Events received, summed over clients. */
  events: number;
  /** Per client: events received, wall time of the first and the last batch, the last seq. */
  received: number[];
  firstMs: number[];
  lastMs: number[];
  lastSeq: number[];
  /** Messages that were not event batches (a resync or a close reason). */
  resyncs: number;
  /** Record → client delay of every 10th event, ms. */
  latencies: { p50: number; p99: number; max: number };
}

type Ws = {
  on(ev: 'open' | 'message' | 'close' | 'error', f: (a?: unknown, b?: unknown) => void): void;
  terminate(): void;
};
type WsCtor = new (url: string, opts: { localAddress: string }) => Ws;
const WebSocket = createRequire(new URL('../package.json', import.meta.url))('ws') as WsCtor;

const url = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 1);
const addresses = (process.argv[4] ?? '127.0.0.1').split(',');
const since = Number(new URL(url).searchParams.get('since') ?? Number.NaN);
const start = Date.now();

interface Client {
  last: number;
  received: number;
  firstMs: number;
  lastMs: number;
  problem?: string;
}
const clients: Client[] = [];
const sockets: Ws[] = [];
const latencies: number[] = [];
let resyncs = 0;
let opened = 0;
let want = Number.POSITIVE_INFINITY;
let waiting: (() => void) | undefined;

const settled = () => clients.every((c) => c.problem !== undefined || c.last >= want);
const check = () => {
  if (waiting && settled()) waiting();
};

function report(): ClientsReport {
  const p = (q: number) => Math.round(percentile(latencies, q) * 10) / 10;
  return {
    complete: clients.filter((c) => c.problem === undefined && c.last >= want).length,
    problems: clients.flatMap((c, i) =>
      c.problem === undefined && c.last >= want ? [] : [`${i}: ${c.problem ?? `at ${c.last}`}`],
    ),
    ms: Date.now() - start,
    events: clients.reduce((n, c) => n + c.received, 0),
    received: clients.map((c) => c.received),
    firstMs: clients.map((c) => c.firstMs),
    lastMs: clients.map((c) => c.lastMs),
    lastSeq: clients.map((c) => c.last),
    resyncs,
    latencies: { p50: p(50), p99: p(99), max: p(100) },
  };
}

for (let i = 0; i < count; i++) {
  const c: Client = { last: Number.isNaN(since) ? -1 : since, received: 0, firstMs: 0, lastMs: 0 };
  clients.push(c);
  const ws = new WebSocket(url, { localAddress: addresses[i % addresses.length] as string });
  sockets.push(ws);
  ws.on('open', () => {
    if (++opened === count) process.stdout.write('ready\n');
  });
  ws.on('message', (data) => {
    const now = Date.now();
    const msg = JSON.parse(String(data)) as {
      kind: string;
      events?: { seq: number; time: number }[];
      reason?: string;
    };
    if (msg.kind !== 'events' || !msg.events) {
      resyncs++;
      c.problem ??= `${msg.kind}: ${msg.reason}`;
      return check();
    }
    if (c.received === 0) c.firstMs = now;
    c.received += msg.events.length;
    c.lastMs = now;
    for (let k = 0; k < msg.events.length; k++) {
      const ev = msg.events[k] as { seq: number; time: number };
      if (c.last >= 0 && ev.seq !== c.last + 1) c.problem ??= `seq ${ev.seq} after ${c.last}`;
      c.last = ev.seq;
      // one latency sample per event is too many to keep; every 10th is plenty for a p99
      if (k % 10 === 0) latencies.push(now - ev.time);
    }
    check();
  });
  ws.on('error', (err) => {
    c.problem ??= `error ${(err as Error).message}`;
    check();
  });
  ws.on('close', (code, reason) => {
    if (c.last < want) c.problem ??= `closed ${code} ${String(reason)} at ${c.last}`;
    check();
  });
}

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const m = /^end (\d+)/.exec(line);
    if (!m) return;
    want = Number(m[1]);
    const done = new Promise<void>((r) => {
      waiting = r;
      check();
    });
    void Promise.race([done, new Promise((r) => setTimeout(r, 45_000))]).then(() => {
      waiting = undefined;
      process.stdout.write(`${JSON.stringify(report())}\n`);
    });
  })
  .on('close', () => {
    for (const ws of sockets) ws.terminate();
    process.exit(0);
  });
