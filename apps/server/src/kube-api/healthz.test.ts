import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

const TOKEN = 'healthz-token-0123456789abcdef';
let app: FastifyInstance;
let engine: FakeEngine;
let storage: string | undefined;
let runtimeErrors: string[];

beforeEach(async () => {
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  storage = undefined;
  runtimeErrors = [];
  const info = engine.nodeInfo.bind(engine);
  Object.assign(engine, {
    storageFailure: () => storage,
    nodeInfo: () => {
      const i = info();
      return { ...i, runtime: { ...i.runtime, ready: runtimeErrors.length === 0, errors: runtimeErrors } };
    },
  });
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock, token: TOKEN });
});
afterEach(() => app.close());

const get = (url: string, token = true) =>
  app.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${TOKEN}` } : {} });

describe('livez and readyz', () => {
  it('answer ok, and with ?verbose the list of checks, to anyone', async () => {
    const plain = await get('/readyz', false);
    expect([plain.statusCode, plain.body, plain.headers['content-type']]).toEqual([
      200,
      'ok',
      'text/plain; charset=utf-8',
    ]);
    expect((await get('/livez?verbose', false)).body).toBe('[+]ping ok\nlivez check passed\n');
    expect((await get('/readyz?verbose=1', false)).body).toBe(
      '[+]ping ok\n[+]storage ok\n[+]runtime ok\n[+]shutdown ok\nreadyz check passed\n',
    );
  });

  it('skip the checks ?exclude names and warn of a name no check has', async () => {
    expect((await get('/readyz?exclude=runtime&exclude=storage', false)).body).toBe('ok');
    expect((await get('/readyz?verbose&exclude=runtime&exclude=etcd&exclude=bogus', false)).body).toBe(
      '[+]ping ok\n[+]storage ok\n[+]runtime excluded: ok\n[+]shutdown ok\n' +
        'warn: some health checks cannot be excluded: no matches for "bogus","etcd"\nreadyz check passed\n',
    );
  });

  it('fail with the whole list, verbose or not, naming each failed check', async () => {
    runtimeErrors = ['container runtime is down'];
    storage = 'trace journal: no space left on device';
    const res = await get('/readyz', false);
    expect(res.statusCode).toBe(503);
    expect(res.body).toBe(
      '[+]ping ok\n[-]storage failed: trace journal: no space left on device\n' +
        '[-]runtime failed: fake://: container runtime is down\n[+]shutdown ok\nreadyz check failed\n',
    );
    // excluded, the failing checks do not fail the answer
    expect((await get('/readyz?exclude=storage&exclude=runtime', false)).body).toBe('ok');
    // liveness does not depend on them
    expect((await get('/livez', false)).body).toBe('ok');
  });

  it('serve each check at its own path, with the token, and 404 an unknown one', async () => {
    expect((await get('/livez/ping', false)).statusCode).toBe(401);
    expect((await get('/livez/ping')).body).toBe('ok');
    expect((await get('/healthz/ping')).body).toBe('ok');
    storage = 'disk full';
    const failed = await get('/readyz/storage');
    expect([failed.statusCode, failed.body]).toEqual([503, 'internal server error: disk full\n']);
    expect((await get('/readyz/runtime')).body).toBe('ok');
    const unknown = await get('/livez/etcd');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });
});
