/**
 * P8 the cost of OTLP export: a 1,000-pod node (100 of them crash-looping, so spans keep coming) run twice at
 * once, side by side under the same load, each engine in a process of its own (p8-otlp-child.ts): one
 * exporting its trace to a collector stand-in here (a real HTTP server on loopback that reads each request
 * and answers 200 as a collector does), one not. Targets: the export adds ≤ 3 % of a core and ≤ 30 MB RSS.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchOptions } from './lib/bench.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

interface Side {
  cpuShare: number;
  rssMaxMB: number;
  loopP99: number;
  events: number;
  exported: number;
  dropped: number;
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const pods = o.smoke ? 20 : 1000;
  const crashing = o.smoke ? 4 : 100;
  const settleMs = o.smoke ? 500 : 15_000;
  const windowMs = o.smoke ? 1_000 : 60_000;
  let bytes = 0;
  let requests = 0;
  const collector = createServer((req, res) => {
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const side = async (otlp?: string): Promise<Side> => {
    const args = [pods, crashing, settleMs, windowMs].map(String);
    const child = await spawnTsx(
      'bench/p8-otlp-child.ts',
      otlp ? [...args, otlp] : args,
      'result ',
      1_200_000,
    );
    await child.stop();
    return JSON.parse(child.ready.slice('result '.length)) as Side;
  };
  try {
    o.log(`${pods} pods (${crashing} crash-looping) twice, side by side, one exporting to ${url}`);
    const [off, on] = await Promise.all([side(), side(url)]);
    o.log(`off ${JSON.stringify(off)}`);
    o.log(`on  ${JSON.stringify(on)}; collector got ${requests} requests, ${Math.round(bytes / 1024)} KiB`);
    const label = `${pods} pods, ${crashing} crash-looping, ${windowMs / 1000} s window`;
    return [
      row({
        bench: 'P8',
        metric: `OTLP export: engine CPU added, ${label}`,
        value: (on.cpuShare - off.cpuShare) * 100,
        unit: '% of a core',
        target: { op: '<=', bound: 3, on: 'value' },
        note: `${(on.cpuShare * 100).toFixed(2)} % with, ${(off.cpuShare * 100).toFixed(2)} % without; ${on.exported} spans sent, ${on.dropped} dropped`,
      }),
      row({
        bench: 'P8',
        metric: `OTLP export: engine RSS added (max), ${pods} pods`,
        value: on.rssMaxMB - off.rssMaxMB,
        unit: 'MB',
        target: { op: '<=', bound: 30, on: 'value' },
        note: `${Math.round(on.rssMaxMB)} MB with, ${Math.round(off.rssMaxMB)} MB without`,
      }),
      row({
        bench: 'P8',
        metric: `sync-loop iteration p99 with export (without: ${Math.round(off.loopP99)} ms)`,
        value: on.loopP99,
        unit: 'ms',
      }),
    ];
  } finally {
    collector.closeAllConnections();
    await new Promise((r) => collector.close(r));
  }
}
