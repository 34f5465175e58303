/**
 * A client paging the whole trace as fast as it can, in a process of its own (its JSON parsing must not eat
 * the server's CPU budget): `tsx bench/lib/trace-pager.ts <base-url> <limit> [from]`. It prints "ready", then on
 * the stdin line "start" pages GET /api/v1/trace?since=…&limit=… from since=from (default 0) as the web does (each page's
 * `next` is the next since), and starts over from `from` once a page comes back short (the newest reached); on
 * "stop" it stops after the page under way (a later "start" goes on). On "end" it prints
 * {pages, events, passes, ms (paging), slowestPageMs} and exits.
 */
import { createInterface } from 'node:readline';

const base = process.argv[2] ?? '';
const limit = Number(process.argv[3] ?? 10_000);
const from = Number(process.argv[4] ?? 0);
let running = false;
let pages = 0;
let events = 0;
let passes = 0;
let slowest = 0;
let pagingMs = 0;
let t0 = 0;

async function page(since: number): Promise<{ n: number; next: number }> {
  const t = performance.now();
  const res = await fetch(`${base}/api/v1/trace?since=${since}&limit=${limit}`);
  if (res.status !== 200) throw new Error(`GET /api/v1/trace answered ${res.status}`);
  const body = (await res.json()) as { items: unknown[]; next: number };
  slowest = Math.max(slowest, performance.now() - t);
  return { n: body.items.length, next: body.next };
}

let since = from;

async function pageWhileRunning(): Promise<void> {
  while (running) {
    const p = await page(since);
    pages++;
    events += p.n;
    if (p.n < limit) {
      passes++;
      since = from;
    } else since = p.next;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'start' && !running) {
    running = true;
    t0 = performance.now();
    pageWhileRunning().catch((err: Error) => {
      process.stderr.write(`trace-pager: ${err.message}\n`);
      process.exit(1);
    });
  } else if (line === 'stop' && running) {
    running = false;
    pagingMs += performance.now() - t0;
  } else if (line === 'end') {
    if (running) pagingMs += performance.now() - t0;
    const ms = Math.round(pagingMs);
    process.stdout.write(
      `${JSON.stringify({ pages, events, passes, ms, slowestPageMs: Math.round(slowest) })}\n`,
    );
    process.exit(0);
  }
});
process.stdout.write('ready\n');
