/**
 * P16 exec round trip: the server (buildApp on the simulated node process) with one running pod; each round
 * opens a WebSocket on the pod's exec (`v5.channel.k8s.io`, `command=cat`, as kubectl does), sends 1 KiB of
 * stdin and its close signal, and waits for the echo, the error channel's Success and the close. The client
 * runs in this process, one round at a time. Target: p99 ≤ 50 ms. Smoke: 20 rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '@syncscope/server';
import { median, p99 } from '@syncscope/test/support/stats';
import { waitOnTrace } from '@syncscope/test/support/wait-trace';
import WebSocket from 'ws';
import type { BenchOptions } from './lib/bench.ts';
import { type Row, row } from './lib/table.ts';

const PAYLOAD = Buffer.alloc(1024, 'x');

/** One exec of `cat` with PAYLOAD on stdin; resolves with its time (ms) once the server closed. */
function roundTrip(url: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ['v5.channel.k8s.io']);
    let out = 0;
    let status = '';
    socket.on('open', () => {
      socket.send(Buffer.concat([Buffer.of(0), PAYLOAD]));
      socket.send(Buffer.of(255, 0));
    });
    socket.on('message', (m: Buffer) => {
      if (m[0] === 1) out += m.length - 1;
      if (m[0] === 3) status += m.subarray(1).toString();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const ms = performance.now() - t0;
      if (out !== PAYLOAD.length || !status.includes('"Success"'))
        reject(new Error(`echoed ${out} bytes, status ${status}`));
      else resolve(ms);
    });
  });
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const rounds = o.smoke ? 20 : 500;
  const dir = mkdtempSync(join(tmpdir(), 'bench-p16-'));
  const built = await buildApp({ dataDir: dir, examples: false, logger: false, warn: () => {} });
  try {
    built.engine.addPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'echo',
        namespace: 'default',
        uid: '00000000-0000-4000-8000-0000000000e1',
        creationTimestamp: new Date(built.clock.now()).toISOString(),
      },
      spec: { containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }] },
    });
    const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
    await waitOnTrace(
      built.trace,
      'the pod to run',
      () =>
        built.engine.getPod('default', 'echo')?.status?.containerStatuses?.[0]?.state?.running !== undefined,
      60_000,
    );
    const url = `${base.replace('http', 'ws')}/api/v1/namespaces/default/pods/echo/exec?command=cat&stdin=true&stdout=true&stderr=true`;
    for (let i = 0; i < 5; i++) await roundTrip(url); // warm-up
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) times.push(await roundTrip(url));
    o.log(`${rounds} rounds: median ${median(times).toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms`);
    return [
      row({
        bench: 'P16',
        metric:
          'exec round trip on the simulated node (WebSocket v5, `cat` of 1 KiB stdin to the close), p99',
        value: p99(times),
        unit: 'ms',
        target: { op: '<=', bound: 50, on: 'value' },
        note: `${rounds} rounds, median ${median(times).toFixed(1)} ms`,
      }),
    ];
  } finally {
    await built.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
