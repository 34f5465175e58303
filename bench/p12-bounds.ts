/**
 * P12 bounds: how much one PATCH can hold up the server. The HTTP app over an engine stand-in holding one pod
 * (apps/server/src/kube-api/patch-server.fixture.ts), in a process of its own; from here, /healthz every
 * PROBE_MS on a fixed schedule (a probe that waits behind a patch counts as late), first idle, then while
 * patches are sent back to back: (a) 963- and 1,147-byte JSON patches that copy a list into
 * itself (unbounded, the first took 44 s and 1.17 GB, the second ran out of heap), (b) 1 MiB strategic
 * merges (the body limit) of the pod's whole env list, about 28,000 entries, sent back with a new image.
 * Targets: /healthz p99 ≤ 100 ms during each, and the server's RSS at most 100 MB above what it held idle
 * in each (its peak, resourceUsage().maxRSS: a bound, since the peak so far includes the warm-up's).
 */
import { createInterface } from 'node:readline';
import { max, median, p99 } from '@syncscope/test/support/stats';
import type { BenchOptions } from './lib/bench.ts';
import { spawnTsx } from './lib/spawn.ts';
import { type Row, row } from './lib/table.ts';

const MB = 2 ** 20;
const PROBE_MS = 10;
/** What the patched pod holds beside its env list (metadata, defaults, status), with room to spare. */
const POD_ROOM = 8 * 1024;
const POD = '/api/v1/namespaces/default/pods/web';

/** A JSON patch of exactly `bytes` bytes: `/a: [1]`, then `/a` copied into itself as often as fits. */
function copyDoubling(bytes: number): string {
  const add = '{"op":"add","path":"/a","value":[1]}';
  const copy = ',{"op":"copy","from":"/a","path":"/a/-"}';
  const body = `[${add}${copy.repeat(Math.floor((bytes - 2 - add.length) / copy.length))}`;
  return `${body}${' '.repeat(bytes - body.length - 1)}]`;
}

/** The pod's env list sent back whole with a new image: a strategic merge of every entry by name. */
function envMerge(entries: number, image: string): string {
  const env = Array.from({ length: entries }, (_, i) => ({ name: `V${i}`, value: String(i) }));
  return JSON.stringify({ spec: { containers: [{ name: 'app', image, env }] } });
}

/**
 * The most env entries whose merge leaves room under `bytes` for the rest of the pod (the patched pod must
 * fit in a body too): the merge is then padded with blanks to exactly `bytes`.
 */
function entriesFor(bytes: number): number {
  let n = Math.floor(bytes / 40);
  while (Buffer.byteLength(envMerge(n + 100, 'busybox:1')) <= bytes - POD_ROOM) n += 100;
  return n;
}

/** envMerge padded with blanks after its JSON to exactly `bytes` (JSON allows them). */
const padded = (body: string, bytes: number) => body + ' '.repeat(bytes - Buffer.byteLength(body));

const mib = (bytes: number) => (bytes >= MB ? `${bytes / MB} MiB` : `${bytes / 1024} KiB`);

interface Usage {
  cpuMicros: number;
  rss: number;
  maxRSS: number;
}

export async function run(o: BenchOptions): Promise<Row[]> {
  const ms = o.smoke ? 1_000 : 10_000;
  const mergeBytes = o.smoke ? 64 * 1024 : MB;
  const entries = entriesFor(mergeBytes);
  const server = await spawnTsx('apps/server/src/kube-api/patch-server.fixture.ts', [], 'ready');
  const rows: Row[] = [];
  try {
    const base = `http://127.0.0.1:${server.ready.split(' ')[1]}`;
    const lines = createInterface({ input: server.proc.stdout as NodeJS.ReadableStream })[
      Symbol.asyncIterator
    ]();
    const command = async (cmd: string) => {
      server.proc.stdin?.write(`${cmd}\n`);
      const next = await lines.next();
      if (next.done) throw new Error('the server ended');
      return next.value as string;
    };
    const usage = async () => JSON.parse(await command('usage')) as Usage;

    /** /healthz latencies for `forMs`, while `load` runs back to back; the load's answers by code. */
    const probe = async (forMs: number, load?: () => Promise<number>) => {
      const latencies: number[] = [];
      const codes = new Map<number, number>();
      const inFlight: Promise<void>[] = [];
      const end = performance.now() + forMs;
      const timer = setInterval(() => {
        const t0 = performance.now();
        inFlight.push(
          fetch(`${base}/healthz`)
            .then((r) => r.text())
            .then(() => {
              latencies.push(performance.now() - t0);
            }),
        );
      }, PROBE_MS);
      let sent = 0;
      const loader = (async () => {
        while (load && performance.now() < end) {
          const code = await load();
          codes.set(code, (codes.get(code) ?? 0) + 1);
          sent++;
        }
      })();
      await new Promise((r) => setTimeout(r, forMs));
      clearInterval(timer);
      await loader;
      await Promise.all(inFlight);
      return { latencies, sent, codes: [...codes].map(([c, n]) => `${n}×${c}`).join(', ') };
    };
    const patch = async (type: string, body: string) =>
      (await fetch(`${base}${POD}`, { method: 'PATCH', headers: { 'content-type': type }, body })).status;

    await command('reset 0');
    // warm up (connections, JIT) on both kinds of patch; then a fresh pod
    await probe(o.smoke ? 300 : 2_000);
    await patch('application/json-patch+json', copyDoubling(963));
    await command(`reset ${entries}`);
    await patch('application/strategic-merge-patch+json', padded(envMerge(entries, 'busybox:1'), mergeBytes));
    await command('reset 0');
    const idle0 = await usage();
    const idle = await probe(ms);
    const bodies = [copyDoubling(963), copyDoubling(1147)];
    let n = 0;
    const copies = await probe(ms, () => patch('application/json-patch+json', bodies[n++ % 2] as string));
    const afterCopies = await usage();
    await command(`reset ${entries}`);
    const merges = [
      padded(envMerge(entries, 'busybox:2'), mergeBytes),
      padded(envMerge(entries, 'busybox:3'), mergeBytes),
    ];
    const merge = await probe(ms, () =>
      patch('application/strategic-merge-patch+json', merges[n++ % 2] as string),
    );
    const end = await usage();
    const idleP99 = p99(idle.latencies);
    o.log(
      `idle p99 ${idleP99.toFixed(1)} ms; copies: ${copies.codes}; merges (${mib(mergeBytes)}): ${merge.codes}`,
    );
    const note = (r: { latencies: number[]; sent: number; codes: string }) =>
      `p50 ${median(r.latencies).toFixed(1)} ms, max ${max(r.latencies).toFixed(0)} ms; ${r.sent} patches back to back (${r.codes})`;
    rows.push(
      row({
        bench: 'P12',
        metric: `/healthz p99, idle (probe every ${PROBE_MS} ms)`,
        value: idleP99,
        unit: 'ms',
        note: `p50 ${median(idle.latencies).toFixed(1)} ms, ${idle.latencies.length} probes`,
      }),
      row({
        bench: 'P12',
        metric: '/healthz p99 during the 963- and 1,147-byte copy-doubling JSON patches',
        value: p99(copies.latencies),
        unit: 'ms',
        floor: idleP99,
        target: { op: '<=', bound: 100, on: 'value' },
        note: note(copies),
      }),
      row({
        bench: 'P12',
        metric: `/healthz p99 during ${mib(mergeBytes)} strategic merges (${entries} env entries)`,
        value: p99(merge.latencies),
        unit: 'ms',
        floor: idleP99,
        target: { op: '<=', bound: 100, on: 'value' },
        note: note(merge),
      }),
      row({
        bench: 'P12',
        metric: 'server RSS growth under the copy-doubling patches (peak over idle)',
        value: (afterCopies.maxRSS - idle0.rss) / MB,
        unit: 'MB',
        target: { op: '<=', bound: 100, on: 'value' },
        note: `idle ${Math.round(idle0.rss / MB)} MB, peak ${Math.round(afterCopies.maxRSS / MB)} MB (the process's peak so far, the warm-up's included)`,
      }),
      row({
        bench: 'P12',
        metric: `server RSS growth under the ${mib(mergeBytes)} strategic merges (peak over idle)`,
        value: (end.maxRSS - idle0.rss) / MB,
        unit: 'MB',
        target: { op: '<=', bound: 100, on: 'value' },
        note: `idle ${Math.round(idle0.rss / MB)} MB, peak ${Math.round(end.maxRSS / MB)} MB (the process's peak so far)`,
      }),
    );
  } finally {
    await server.stop();
  }
  return rows;
}
