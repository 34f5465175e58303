/**
 * Property: any PATCH body of at most 1 MiB (JSON, merge or strategic merge) is answered within 2 s with at
 * most 200 MB more memory, or refused with a 4xx; never a 5xx. Bodies come from patch-fuzz.ts's adversaries
 * (copy amplification, deep nesting, huge lists, many operations) with a seeded PRNG, so a failure names
 * its seed and kind and can be replayed. The server runs in a process of its own (patch-server.fixture.ts)
 * whose heap is capped at what it holds idle plus 200 MB: a patch that needs more kills it; its peak RSS (every
 * thread, the patch thread's too) may be at most 200 MB over its RSS idle. The 2 s is the
 * CPU time the server spent on the request (its own threads, GC included), so that a machine busy with
 * other work does not fail it; the wall time is bounded too, more loosely. Timed in real milliseconds (hence
 * the integration tier): the bounds only catch a blowup (the unbounded server took 44 s and 1.17 GB on a
 * 963-byte patch, or ran out of heap).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adversary, copyDoubling, prng } from './patch-fuzz.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const TSX = join(HERE, '..', '..', '..', '..', 'node_modules', '.bin', 'tsx');
const MiB = 2 ** 20;
const SEED = 30;
const CASES = 40;
/** CPU time the server may spend on one request. */
const MAX_CPU_MS = 2_000;
/** Wall time one request may take, on a machine shared with other work. */
const MAX_WALL_MS = 10_000;
/** The server's heap idle is under 60 MB; with 200 MB more allowed, past this it runs out and dies. */
const HEAP_MB = 260;
/** Memory the server may take on top of what it holds idle, over every patch. */
const MAX_EXTRA_MB = 200;

let server: ChildProcess;
let lines: AsyncIterator<string>;
let base: string;

/** Sends one command to the server's stdin; its one-line answer. */
async function command(cmd: string): Promise<string> {
  server.stdin?.write(`${cmd}\n`);
  const next = await lines.next();
  if (next.done) throw new Error(`the server ended (exit ${server.exitCode ?? server.signalCode})`);
  return next.value;
}

beforeAll(async () => {
  server = spawn(TSX, [`--max-old-space-size=${HEAP_MB}`, join(HERE, 'patch-server.fixture.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const rl: Interface = createInterface({ input: server.stdout as NodeJS.ReadableStream });
  lines = rl[Symbol.asyncIterator]();
  const ready = await lines.next();
  base = `http://127.0.0.1:${String(ready.value).split(' ')[1]}`;
}, 60_000);

afterAll(() => {
  server.kill();
});

interface Usage {
  cpuMicros: number;
  rss: number;
  maxRSS: number;
}

/** Sends one PATCH; its code and message, the wall time it took and the server's CPU time on it, in ms. */
async function patch(
  type: string,
  body: string,
): Promise<{ code: number; ms: number; cpuMs: number; message: string }> {
  const before = JSON.parse(await command('usage')) as Usage;
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/namespaces/default/pods/web`, {
    method: 'PATCH',
    headers: { 'content-type': type },
    body,
  });
  const json = (await res.json()) as { message?: string };
  const ms = performance.now() - t0;
  const after = JSON.parse(await command('usage')) as Usage;
  const cpuMs = (after.cpuMicros - before.cpuMicros) / 1000;
  return { code: res.status, ms, cpuMs, message: json.message ?? '' };
}

function expectBounded(r: { ms: number; cpuMs: number }, what: string): void {
  expect(r.cpuMs, `${what}: CPU ms`).toBeLessThanOrEqual(MAX_CPU_MS);
  expect(r.ms, `${what}: wall ms`).toBeLessThanOrEqual(MAX_WALL_MS);
}

describe('a PATCH of at most 1 MiB is answered quickly with bounded memory, or refused with a 4xx', () => {
  it('the 963- and 1,147-byte copy doublings: 422 within 2 s, the server alive', async () => {
    await command('reset 0');
    for (const bytes of [963, 1147]) {
      const r = await patch('application/json-patch+json', copyDoubling(bytes));
      expect(r.code).toBe(422);
      expectBounded(r, `${bytes} bytes`);
    }
  }, 60_000);

  it(`${CASES} adversarial patches, seed ${SEED}`, async () => {
    const rnd = prng(SEED);
    const seen: string[] = [];
    await command('reset 0');
    const idle = JSON.parse(await command('usage')) as Usage;
    for (let i = 0; i < CASES; i++) {
      await command(`reset ${Math.floor(rnd() * 2_000)}`);
      const a = adversary(rnd, MiB - 1024);
      expect(Buffer.byteLength(a.body), a.name).toBeLessThanOrEqual(MiB);
      const r = await patch(a.type, a.body);
      seen.push(`${a.name}: ${r.code} in ${Math.round(r.ms)} ms (CPU ${Math.round(r.cpuMs)} ms)`);
      expect(r.code, `${a.name}: ${r.message.slice(0, 200)}`).toBeLessThan(500);
      expectBounded(r, a.name);
    }
    const mem = JSON.parse(await command('usage')) as Usage;
    const extraMB = (mem.maxRSS - idle.rss) / MiB;
    console.info(
      `${seen.join('\n')}\nserver RSS ${Math.round(idle.rss / MiB)} MB idle, peak +${Math.round(extraMB)} MB`,
    );
    // every thread's memory, the patch thread's included (the heap cap above bounds the main thread's only)
    expect(extraMB, 'peak RSS over idle, MB').toBeLessThanOrEqual(MAX_EXTRA_MB);
  }, 300_000);

  it('a strategic merge of 10,000 env entries into 10,000 is applied within 2 s', async () => {
    await command('reset 10000');
    const env = Array.from({ length: 10_000 }, (_, i) => ({
      name: `V${9_999 - i}`,
      value: String(9_999 - i),
    }));
    const r = await patch(
      'application/strategic-merge-patch+json',
      JSON.stringify({ spec: { containers: [{ name: 'app', image: 'busybox:2', env }] } }),
    );
    expect(r.code).toBe(200);
    expectBounded(r, '10,000 env');
  }, 60_000);
});
