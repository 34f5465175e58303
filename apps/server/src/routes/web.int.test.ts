/**
 * The built web app over a real socket: hashed assets are sent compressed when the client accepts it and
 * cached for good; index.html is revalidated on every load, whether asked for by `/` or by the page
 * fallback; a client that accepts no compression gets the plain file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { IMMUTABLE, REVALIDATE } from './web.ts';

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;
let dir: string;
let app: FastifyInstance;
let port: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'web-test-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><title>t</title><script src="assets/a-1b2c.js"></script>',
  );
  const js = join(dir, 'assets', 'a-1b2c.js');
  writeFileSync(js, SCRIPT);
  writeFileSync(`${js}.gz`, gzipSync(SCRIPT));
  writeFileSync(`${js}.br`, brotliCompressSync(SCRIPT));
  const clock = new FakeClock();
  app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace: new TraceRecorder(clock, 100),
    clock,
    webRoot: dir,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterEach(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the web app files', () => {
  it('sends a hashed asset brotli-compressed to a browser that accepts it, cached for a year', async () => {
    const res = await get('/assets/a-1b2c.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.body.length).toBeLessThan(SCRIPT.length / 4);
    expect(brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
  });

  it('sends gzip when that is all the client accepts, and the plain file when it accepts none', async () => {
    const gz = await get('/assets/a-1b2c.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get('/assets/a-1b2c.js', {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('says every answer varies by Accept-Encoding, so a shared cache keeps the encodings apart', async () => {
    for (const enc of ['br', 'gzip', '']) {
      const res = await get('/assets/a-1b2c.js', enc ? { 'accept-encoding': enc } : {});
      expect(res.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it('has index.html revalidated on every load, at / and from the page fallback', async () => {
    const root = await get('/', { accept: 'text/html' });
    expect(root.status).toBe(200);
    expect(root.headers['cache-control']).toBe(REVALIDATE);
    const fallback = await get('/some/page', { accept: 'text/html' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.toString()).toContain('<title>t</title>');
    expect(fallback.headers['cache-control']).toBe(REVALIDATE);
  });
});
