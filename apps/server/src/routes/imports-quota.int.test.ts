/**
 * The imports' quota: a count and bytes kept (--imports-max-count, --imports-max-bytes). An import past either is
 * refused with 403 Forbidden "exceeded quota", as the API server refuses an object past a ResourceQuota, naming the
 * limit and its flag; nothing older is evicted, and nothing of the refused import is kept.
 */

import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImportQuota } from '../imports/store.ts';
import { importsApp } from './imports-testing.ts';

const SAMPLE = readFileSync(
  new URL(
    '../../../../packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    import.meta.url,
  ),
);

let dir: string;
let app: FastifyInstance;
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function serve(quota: ImportQuota): Promise<void> {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-imports-quota-'));
  app = await importsApp(dir, quota);
}

const post = (name: string) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/imports?name=${name}`,
    headers: { 'content-type': 'text/plain' },
    payload: SAMPLE,
  });
const kept = async () => (await readdir(join(dir, 'imports'))).sort();

describe('the imports quota', () => {
  it('refuses one import more than --imports-max-count with 403 exceeded quota, until one is deleted', async () => {
    await serve({ maxCount: 2, maxBytes: 1 << 30 });
    const a = await post('a.log');
    expect(a.statusCode, a.body).toBe(201);
    expect((await post('b.log')).statusCode).toBe(201);
    const before = await kept();

    const refused = await post('c.log');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message:
        'imports "c.log" is forbidden: exceeded quota: imports, requested: count=1, used: count=2, ' +
        'limited: count=2 (--imports-max-count; delete an import to make room)',
      details: { name: 'c.log', kind: 'imports' },
    });
    expect(await kept()).toEqual(before);

    const del = await app.inject({ method: 'DELETE', url: `/api/v1/imports/${a.json().id}` });
    expect(del.statusCode).toBe(200);
    expect((await post('c.log')).statusCode).toBe(201);
  });

  it('refuses an import that would pass --imports-max-bytes, and keeps nothing of it', async () => {
    await serve({ maxCount: 100, maxBytes: 1 << 30 });
    expect((await post('a.log')).statusCode).toBe(201);
    const [only] = await kept();
    const one = (await app.inject({ method: 'GET', url: '/api/v1/imports' })).json().items.length;
    expect(one).toBe(1);
    await app.close();

    // the same directory, with room for less than a second import of the same log
    app = await importsApp(dir, { maxCount: 100, maxBytes: 3 * SAMPLE.length });
    const refused = await post('b.log');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toMatch(
      /^imports "b\.log" is forbidden: exceeded quota: imports, requested: bytes=\d+, used: bytes=\d+, limited: bytes=\d+ \(--imports-max-bytes; /,
    );
    expect(await kept()).toEqual([only]);
  });
});
