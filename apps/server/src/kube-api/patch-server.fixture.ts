/**
 * A server for patch-bounds.int.test.ts and bench/p12-bounds.ts to send patches to, in a process of its own
 * (started with a capped heap, so a patch that needs far more memory than it should kills it rather than
 * passing): createHttpApp over a FakeEngine holding one pod, default/web. Prints `ready <port>`, then reads
 * commands on stdin, one a line, and answers each with one line:
 *   reset <n>   the pod as at start, with n env entries          → `ok`
 *   usage       CPU time so far (µs, every thread) and memory: rss, heapUsed, maxRSS (bytes) → JSON
 */
import { createInterface } from 'node:readline';
import { RealClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { envPod } from './patch-fuzz.ts';

const clock = new RealClock();
const engine = new FakeEngine(clock);

function reset(env: number): void {
  engine.pods.clear();
  engine.addPod(envPod(env));
}

reset(0);
const app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 1000), clock });
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
if (typeof addr !== 'object' || !addr) throw new Error('no address');
process.stdout.write(`ready ${addr.port}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.trim().split(' ');
  if (cmd === 'reset') {
    reset(Number(arg ?? 0));
    process.stdout.write('ok\n');
  } else if (cmd === 'usage') {
    const { user, system } = process.cpuUsage();
    const { rss, heapUsed } = process.memoryUsage();
    const maxRSS = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${JSON.stringify({ cpuMicros: user + system, rss, heapUsed, maxRSS })}\n`);
  }
}
await app.close();
