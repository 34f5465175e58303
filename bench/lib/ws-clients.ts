/**
 * Trace-stream readers in a process of their own (their JSON parsing must not eat the server's CPU budget):
 * `tsx bench/lib/ws-clients.ts <ws-url> <count>`. Prints "ready" once every client is open. On the stdin line
 * "end <lastSeq>" it waits (≤ 15 s) until every client has seen lastSeq, then prints one JSON line:
 * {received[], firstMs[], lastMs[], resyncs, latencies: {p50,p99,max}} and exits.
 */
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { percentile } from './stats.ts';

type WsCtor = new (
  url: string,
) => {
  on(ev: 'open' | 'message' | 'close', f: (data?: unknown) => void): void;
  close(): void;
};
const WebSocket = createRequire(import.meta.url)('ws') as WsCtor;

const url = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 5);
const received = new Array<number>(count).fill(0);
const firstMs = new Array<number>(count).fill(0);
const lastMs = new Array<number>(count).fill(0);
const lastSeq = new Array<number>(count).fill(0);
const latencies: number[] = [];
let resyncs = 0;
let opened = 0;
let want = Number.POSITIVE_INFINITY;
let finish: (() => void) | undefined;

for (let i = 0; i < count; i++) {
  const ws = new WebSocket(url);
  ws.on('open', () => {
    if (++opened === count) process.stdout.write('ready\n');
  });
  ws.on('message', (data) => {
    const now = Date.now();
    const msg = JSON.parse(String(data)) as { kind: string; events?: { seq: number; time: number }[] };
    if (msg.kind !== 'events' || !msg.events) {
      resyncs++;
      return;
    }
    if (received[i] === 0) firstMs[i] = now;
    received[i] = (received[i] as number) + msg.events.length;
    lastMs[i] = now;
    // one latency sample per event is too many to keep; every 10th is plenty for a p99
    for (let k = 0; k < msg.events.length; k += 10)
      latencies.push(now - (msg.events[k] as { time: number }).time);
    lastSeq[i] = (msg.events[msg.events.length - 1] as { seq: number }).seq;
    if (finish && lastSeq.every((s) => s >= want)) finish();
  });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = /^end (\d+)/.exec(line);
  if (!m) return;
  want = Number(m[1]);
  const done = new Promise<void>((r) => {
    finish = r;
    if (lastSeq.every((s) => s >= want)) r();
  });
  void Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]).then(() => {
    const p = (q: number) => percentile(latencies, q);
    process.stdout.write(
      `${JSON.stringify({ received, firstMs, lastMs, lastSeq, resyncs, latencies: { p50: p(50), p99: p(99), max: p(100) } })}\n`,
    );
    process.exit(0);
  });
});
