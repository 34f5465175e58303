/**
 * An import parses on a thread of its own (integration: a real listening server, real sockets, wall time).
 * While a 12 MB log of deeply nested klog JSON lines is uploaded and parsed (seconds of parser work), /healthz
 * keeps answering: asked again as soon as each answer arrives, the answers slower than a twentieth of the import
 * add up to less than half of it (ratios of times of the same run, so a loaded machine slows both; one
 * scheduler stall on a busy machine is one slow answer, not a held loop). On the event loop the same parse held
 * /healthz for 1.1-1.3 s at a time in a 15 s import, nearly all of it held, and for all of it at first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importsApp } from './imports-testing.ts';

/** A /healthz answer slower than this part of the import's whole time counts as held. */
const SLOW_SHARE = 1 / 20;
/** The part of the import's time that may be spent in held answers. */
const HELD_SHARE = 1 / 2;

let dir: string;
let app: FastifyInstance;
let base: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-imports-load-'));
  app = await importsApp(dir);
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

/** klog JSON lines, each carrying a value nested `depth` arrays deep, `bytes` in all. */
function nestedLog(bytes: number, depth: number): Buffer {
  const line = Buffer.from(
    `{"ts":1700000000.123,"caller":"kubelet.go:2000","msg":"SyncLoop ADD","v":0,"source":"api",` +
      `"pods":["default/web"],"x":${'['.repeat(depth)}${']'.repeat(depth)}}\n`,
  );
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / line.length) }, () => line));
}

describe('an import being parsed', () => {
  it('does not hold /healthz: every answer within the bound while a 12 MB nested import is parsed', async () => {
    const body = nestedLog(12e6, 200);
    let done = false;
    const started = performance.now();
    const posted = fetch(`${base}/api/v1/imports?name=nested.log`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: new Blob([new Uint8Array(body)]),
    }).then(async (r) => {
      done = true;
      return { status: r.status, body: (await r.json()) as { summary?: { events: number } } };
    });
    const latencies: number[] = [];
    while (!done) {
      const t = performance.now();
      const res = await fetch(`${base}/healthz`);
      expect(await res.text()).toBe('ok');
      latencies.push(performance.now() - t);
    }
    const result = await posted;
    const took = performance.now() - started;
    expect(result.status).toBe(201);
    expect(result.body.summary?.events).toBeGreaterThan(1_000);
    // the parse was long enough to matter, and /healthz answered all along it
    expect(latencies.length).toBeGreaterThan(20);
    const worst = Math.max(...latencies);
    const held = latencies.filter((ms) => ms > took * SLOW_SHARE).reduce((a, b) => a + b, 0);
    console.log(
      `import ${Math.round(took)} ms; /healthz ${latencies.length} answers, slowest ${Math.round(worst)} ms, ` +
        `held ${Math.round(held)} ms`,
    );
    expect(held).toBeLessThan(took * HELD_SHARE);
  }, 120_000);
});
