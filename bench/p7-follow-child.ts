/**
 * The log follower alone in a process, so P7 can charge it its own CPU: `tsx bench/p7-follow-child.ts FILE
 * poll|watch`. Follows FILE from its end, prints "ready" once the file is open; on the stdin line "start" it
 * notes its CPU time, on "report" it prints `report {"cpuMs":…,"wallMs":…,"events":…,"lines":…}`; the end of
 * stdin ends it.
 */
import { createInterface } from 'node:readline';
import { startLogFollower } from '@syncscope/server/observe/log-follow';

const file = process.argv[2] ?? '';
let events = 0;
const f = startLogFollower({
  file,
  watch: process.argv[3] === 'watch',
  onEvents: (evs) => {
    events += evs.length;
  },
  warn: (m) => process.stderr.write(`  [p7 follower] ${m}\n`),
});
const end = Date.now() + 30_000;
while (f.stats().state !== 'following') {
  if (Date.now() > end) throw new Error(`${file} not opened`);
  await new Promise((r) => setTimeout(r, 10));
}
process.stdout.write('ready\n');

let cpu0 = process.cpuUsage();
let t0 = performance.now();
let events0 = 0;
let lines0 = 0;
createInterface({ input: process.stdin })
  .on('line', (l) => {
    if (l === 'start') {
      cpu0 = process.cpuUsage();
      t0 = performance.now();
      events0 = events;
      lines0 = f.stats().lines;
    } else if (l === 'report') {
      const c = process.cpuUsage(cpu0);
      const r = {
        cpuMs: (c.user + c.system) / 1000,
        wallMs: performance.now() - t0,
        events: events - events0,
        lines: f.stats().lines - lines0,
      };
      process.stdout.write(`report ${JSON.stringify(r)}\n`);
    }
  })
  .on('close', () => {
    void f.stop().finally(() => process.exit(0));
  });
