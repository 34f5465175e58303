/**
 * Trace-stream readers in a process of their own, so their JSON parsing does not delay the test's own
 * measurements: `tsx test/support/stream-clients.ts <ws-url> <count> <want-seq> <addresses>`.
 *
 * Opens `count` WebSockets with ?since=0 at once, spread round-robin over the comma-separated local
 * addresses (any 127.x.y.z works on Linux loopback), and checks on each that seqs arrive one after another
 * from 1. Prints one JSON line (a ClientsReport) once every client has seen `want-seq`, or once every client
 * is done or closed, or after 45 s. The clients stay open until stdin ends, then the process exits.
 */
import { createRequire } from 'node:module';

export interface ClientsReport {
  /** Clients that saw every seq from 1 to want-seq, in order. */
  complete: number;
  /** Per client that was not complete: why. */
  problems: string[];
  /** Milliseconds from the first connect to the last client's completion. */
  ms: number;
  /** Events received, summed over clients. */
  events: number;
}

type Ws = {
  on(ev: 'open' | 'message' | 'close' | 'error', f: (a?: unknown, b?: unknown) => void): void;
  terminate(): void;
};
type WsCtor = new (url: string, opts: { localAddress: string }) => Ws;
const WebSocket = createRequire(new URL('../package.json', import.meta.url))('ws') as WsCtor;

const url = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 1);
const want = Number(process.argv[4] ?? 1);
const addresses = (process.argv[5] ?? '127.0.0.1').split(',');
const start = Date.now();

interface State {
  last: number;
  problem?: string;
  done: boolean;
}
const states: State[] = [];
const sockets: Ws[] = [];
let events = 0;
let reported = false;

function report(): void {
  if (reported) return;
  reported = true;
  const out: ClientsReport = {
    complete: states.filter((s) => s.done && !s.problem).length,
    problems: states.flatMap((s, i) =>
      s.done && !s.problem ? [] : [`${i}: ${s.problem ?? `at ${s.last}`}`],
    ),
    ms: Date.now() - start,
    events,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
const check = () => {
  if (states.every((s) => s.done || s.problem)) report();
};

for (let i = 0; i < count; i++) {
  const s: State = { last: 0, done: false };
  states.push(s);
  const ws = new WebSocket(`${url}?since=0`, { localAddress: addresses[i % addresses.length] as string });
  sockets.push(ws);
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { kind: string; events?: { seq: number }[]; reason?: string };
    if (msg.kind !== 'events' || !msg.events) {
      s.problem ??= `${msg.kind}: ${msg.reason}`;
      return check();
    }
    events += msg.events.length;
    for (const ev of msg.events) {
      if (ev.seq !== s.last + 1) s.problem ??= `seq ${ev.seq} after ${s.last}`;
      s.last = ev.seq;
    }
    if (!s.done && s.last >= want) {
      s.done = true;
      check();
    }
  });
  ws.on('error', (err) => {
    s.problem ??= `error ${(err as Error).message}`;
    check();
  });
  ws.on('close', (code, reason) => {
    if (!s.done) s.problem ??= `closed ${code} ${String(reason)} at ${s.last}`;
    check();
  });
}
setTimeout(report, 45_000).unref();
process.stdin.resume();
process.stdin.on('end', () => {
  for (const ws of sockets) ws.terminate();
  process.exit(0);
});
