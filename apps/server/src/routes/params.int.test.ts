/**
 * The params and query strings of the server's own routes, checked by their TypeBox schemas
 * (routes/params.ts), over real HTTP on a loopback socket: a bad value is a 400 Status that names the
 * parameter and what it must be; a good one reaches the handler as its type.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Status } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

let tmp: string;
let app: FastifyInstance;
let base: string;
let trace: TraceRecorder;

beforeEach(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'params-test-'));
  const clock = new FakeClock();
  trace = new TraceRecorder(clock, 100);
  app = await createHttpApp({
    engine: new FakeEngine(clock),
    trace,
    clock,
    podLogsDirectory: tmp,
    importsDir: join(tmp, 'imports'),
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await app.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function refused(path: string, init?: RequestInit): Promise<Status> {
  const res = await fetch(`${base}${path}`, init);
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Status;
}

describe('query strings checked by their schema', () => {
  it('refuses an integer that is not plain digits, naming the parameter and the rule', async () => {
    for (const [query, param, value, want] of [
      ['since=abc', 'since', 'abc', 'must be a non-negative integer'],
      ['since=-1', 'since', '-1', 'must be a non-negative integer'],
      ['since=%2B1', 'since', '+1', 'must be a non-negative integer'],
      ['since=', 'since', '', 'must be a non-negative integer'],
      ['limit=1e3', 'limit', '1e3', 'must be an integer >= 1'],
      ['limit=0x10', 'limit', '0x10', 'must be an integer >= 1'],
      ['limit=0', 'limit', '0', 'must be an integer >= 1'],
      ['since=99999999999999999', 'since', '99999999999999999', 'must be a non-negative integer'],
    ] as const) {
      const s = await refused(`/api/v1/trace?${query}`);
      expect(s).toMatchObject({
        kind: 'Status',
        status: 'Failure',
        reason: 'BadRequest',
        code: 400,
        message: `invalid value for ?${param}=${JSON.stringify(value)}: ${want}`,
        details: {
          causes: [
            {
              field: param,
              reason: 'FieldValueInvalid',
              message: `Invalid value: ${JSON.stringify(value)}: ${want}`,
            },
          ],
        },
      });
    }
  });

  it('hands the handler numbers: since and limit page the trace', async () => {
    for (let i = 0; i < 5; i++)
      trace.record({ type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 0, restarted: 0 });
    const res = await fetch(`${base}/api/v1/trace?since=1&limit=2`);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { items: { seq: number }[]; next: number };
    expect(page.items.map((e) => e.seq)).toEqual([2, 3]);
    expect(page.next).toBe(3);
  });

  it('reads booleans as the apiserver does (Go ParseBool) or empty, and refuses anything else', async () => {
    const s = await refused('/api/v1/namespaces/default/pods/web/log?previous=yes');
    expect(s.message).toBe('invalid value for ?previous="yes": must be true or false');
    expect(s.details?.causes?.[0]?.field).toBe('previous');
    const t = await refused('/api/v1/namespaces/default/pods/web/log?timestamps=2');
    expect(t.details?.causes?.[0]?.field).toBe('timestamps');
    // a good value passes the check and reaches the handler, which does not know the pod
    for (const q of [
      'previous=',
      'previous=false',
      'follow=true&tailLines=3',
      'previous=True',
      'timestamps=1',
    ]) {
      expect((await fetch(`${base}/api/v1/namespaces/default/pods/web/log?${q}`)).status).toBe(404);
    }
  });

  it('checks a string against its pattern with the pattern flags kept', async () => {
    const s = await refused('/api/v1/imports?name=a%01b', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(s.message).toBe('invalid value for ?name="a\\u0001b": a file name of 1-255 characters');
    // a name in any script passes the check (the body is then refused: it holds no kubelet line)
    const res = await fetch(`${base}/api/v1/imports?name=${encodeURIComponent('ноутбук ✓.log')}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Status).message).not.toMatch(/^invalid value for \?name/);
  });

  it('refuses a bad line number of an import before looking the import up', async () => {
    const s = await refused('/api/v1/imports/0123/log?line=0');
    expect(s.message).toBe('invalid value for ?line="0": must be an integer >= 1');
  });
});
