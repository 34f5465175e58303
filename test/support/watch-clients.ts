/**
 * Pod watchers in a process of their own (their parsing must not eat the server's CPU budget):
 * `tsx test/support/watch-clients.ts <watch-url> <count>` (bench P10). Each opens the URL (a chunked stream of WatchEvents)
 * and prints "ready" once every stream has answered. For each MODIFIED event it takes the latency from the
 * pod's `bench/changed-at` annotation (performance.timeOrigin + performance.now() of the server when it
 * made the change; both processes read the same clock). On the stdin line "end <n>" it waits (≤ 15 s)
 * until every watcher has seen n changes, then prints {received[], latencies: {p50,p99,max}} and exits.
 */
import { createInterface } from 'node:readline';
import { jsonLines } from './json-lines.ts';
import { percentile } from './stats.ts';

const url = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 10);
const received = new Array<number>(count).fill(0);
const latencies: number[] = [];
let opened = 0;
let want = Number.POSITIVE_INFINITY;
let finish: (() => void) | undefined;
const now = () => performance.timeOrigin + performance.now();

async function watcher(i: number): Promise<void> {
  const res = await fetch(url);
  if (++opened === count) process.stdout.write('ready\n');
  if (!res.body) return;
  type Ev = { type: string; object: { metadata: { annotations?: Record<string, string> } } };
  for await (const batch of jsonLines<Ev>(res.body)) {
    for (const ev of batch) {
      const at = Number(ev.object.metadata.annotations?.['bench/changed-at']);
      if (ev.type !== 'MODIFIED' || !at) continue;
      latencies.push(now() - at);
      received[i] = (received[i] as number) + 1;
    }
    if (finish && received.every((n) => n >= want)) finish();
  }
}

for (let i = 0; i < count; i++) void watcher(i);

createInterface({ input: process.stdin }).on('line', (line) => {
  const m = /^end (\d+)/.exec(line);
  if (!m) return;
  want = Number(m[1]);
  const done = new Promise<void>((r) => {
    finish = r;
    if (received.every((n) => n >= want)) r();
  });
  void Promise.race([done, new Promise((r) => setTimeout(r, 15_000))]).then(() => {
    const p = (q: number) => Math.round(percentile(latencies, q) * 10) / 10;
    process.stdout.write(
      `${JSON.stringify({ received, latencies: { p50: p(50), p99: p(99), max: p(100) } })}\n`,
    );
    process.exit(0);
  });
});
