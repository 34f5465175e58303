/**
 * An import parses on a thread of its own (integration: a real listening server, real sockets, wall time).
 * While a 12 MB log of deeply nested klog JSON lines is uploaded and parsed (seconds of parser work), /healthz
 * keeps answering: asked again as soon as each answer arrives, none takes longer than HEALTHZ_BOUND_MS.
 * On the event loop the same parse held every request for the whole parse (13.6 s measured).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceRecorder } from '@syncscope/core';
import { FakeClock } from '@syncscope/core/clock';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

/** Generous for a loaded 2-core machine (86 ms measured at load 10); the parse takes several seconds. */
const HEALTHZ_BOUND_MS = 500;

let dir: string;
let app: FastifyInstance;
let base: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-imports-load-'));
  const clock = new FakeClock();
  app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace: new TraceRecorder(clock),
    clock,
    importsDir: join(dir, 'imports'),
  });
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
    const body = nestedLog(12e6, 2_000);
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
    expect(took).toBeGreaterThan(HEALTHZ_BOUND_MS);
    expect(latencies.length).toBeGreaterThan(3);
    const worst = Math.max(...latencies);
    console.log(
      `import ${Math.round(took)} ms; /healthz ${latencies.length} answers, slowest ${Math.round(worst)} ms`,
    );
    expect(worst).toBeLessThan(HEALTHZ_BOUND_MS);
  }, 120_000);
});
