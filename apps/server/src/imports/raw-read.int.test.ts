/**
 * An import's raw-line side file damaged on disk, read through the routes of a real HTTP app: records whose
 * range ends far past the log, ends before it starts, spans 1 GiB, holds a NaN, a null, a negative or a
 * fractional offset, a line that is not JSON and one longer than any record, among the good ones. The raw-line
 * route answers 200 with exactly the good entries, their messages as before, and the count of damaged
 * records; the explain route answers 200 too; neither grows the heap or the buffers by more than a few
 * lines. A side file that cannot be read at all (a directory, a FIFO) or a missing log is one 503 Status naming
 * the file, at once.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importsApp } from '../routes/imports-testing.ts';
import { checkedRecord, MAX_RANGE_BYTES } from './raw-records.ts';

const LOG = [
  'I0512 05:10:00.000000    2473 x.go:1] "Node note" name="节点 é 😀"',
  'I0512 05:10:01.000000    2473 x.go:2] "Volume note" pod="ns1/a" v="→"',
  'I0512 05:10:02.000000    2473 x.go:3] "Disk note" free="12%"',
  'I0512 05:10:03.000000    2473 x.go:4] "Other note" n=4',
].join('\n');

interface Page {
  items: { after: number; event: { text: string; origin?: { line: number } } }[];
  total: number;
  next: number | null;
  damaged?: number;
}

let dir: string;
let app: FastifyInstance;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-raw-damaged-'));
  app = await importsApp(dir);
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function imported(): Promise<{ id: string; files: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/imports?name=kubelet.log',
    headers: { 'content-type': 'text/plain' },
    payload: `${LOG}\n`,
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json<{ id: string }>().id;
  return { id, files: join(dir, 'imports', id) };
}

const get = (url: string) => app.inject({ method: 'GET', url });

/** A good record's line with its start and end replaced by the given texts (NaN too, which JSON has not). */
function withRange(good: string, start: string, end: string): string {
  const row = JSON.parse(good) as unknown[];
  row[11] = '@start';
  row[12] = '@end';
  return JSON.stringify(row).replace('"@start"', start).replace('"@end"', end);
}

describe('a damaged raw-line side file', () => {
  it('answers the entries it can read, counts the damaged records, and allocates no more than a line', async () => {
    const { id, files } = await imported();
    const before = (await get(`/api/v1/imports/${id}/raw`)).json<Page>();
    expect(before.items.map((i) => i.event.text)).toEqual([
      '"Node note" name="节点 é 😀"',
      '"Volume note" pod="ns1/a" v="→"',
      '"Disk note" free="12%"',
      '"Other note" n=4',
    ]);
    expect(before.damaged).toBeUndefined();
    const good = (await readFile(join(files, 'raw.ndjson'), 'utf8')).split('\n').filter((l) => l !== '');
    const size = (await stat(join(files, 'log.txt'))).size;
    const [g0, g1, g2, g3] = good as [string, string, string, string];
    const damaged = [
      withRange(g0, '0', String(size + 10 ** 12)), // ends far past the file
      withRange(g0, '40', '10'), // ends before it starts
      withRange(g0, '0', String(2 ** 30)), // a 1 GiB range
      withRange(g0, '0', 'NaN'), // not JSON at all
      withRange(g0, 'null', '10'), // a NaN as JSON writes it
      withRange(g0, '-5', '10'),
      withRange(g0, '1.5', '10'),
      '{"not":"a record"}',
      'garbage[',
      `["${'x'.repeat(9 << 20)}"]`, // longer than any record
    ];
    expect(damaged.slice(0, 7).every((l) => l !== g0)).toBe(true);
    await writeFile(
      join(files, 'raw.ndjson'),
      [g0, ...damaged.slice(0, 5), g1, ...damaged.slice(5), g2, g3, ''].join('\n'),
    );
    const mem0 = process.memoryUsage();
    const res = await get(`/api/v1/imports/${id}/raw`);
    const mem1 = process.memoryUsage();
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json<Page>();
    expect(page.items).toEqual(before.items);
    expect(page.total).toBe(4);
    expect(page.damaged).toBe(damaged.length);
    // a search and a page of one node read the same entries
    const found = (await get(`/api/v1/imports/${id}/raw?q=${encodeURIComponent('Disk note')}`)).json<Page>();
    expect(found.items.map((i) => i.event.text)).toEqual(['"Disk note" free="12%"']);
    const paged = (await get(`/api/v1/imports/${id}/raw?since=1&limit=2`)).json<Page>();
    expect(paged.items.map((i) => i.event.origin?.line)).toEqual([2, 3]);
    expect(paged.next).toBe(3);
    // the 1 GiB range and the record of 9 MiB were never held (a line's bytes at most, and a chunk)
    expect(mem1.arrayBuffers - mem0.arrayBuffers).toBeLessThan(64 << 20);
    const explained = await get(`/api/v1/imports/${id}/explain`);
    expect(explained.statusCode, explained.body).toBe(200);
  });

  it('checks every field and reads no range longer than a line the importer keeps', async () => {
    const { files } = await imported();
    const [g0] = (await readFile(join(files, 'raw.ndjson'), 'utf8')).split('\n') as [string];
    expect(checkedRecord(g0)).toBeDefined();
    expect(checkedRecord(withRange(g0, '-1', '-1'))).toBeDefined(); // the importer did not keep the input
    expect(checkedRecord(withRange(g0, '0', String(MAX_RANGE_BYTES)))).toBeDefined();
    expect(checkedRecord(withRange(g0, '0', String(MAX_RANGE_BYTES + 1)))).toBeUndefined();
    expect(checkedRecord(g0.replace(/^\[\d+,/, '[-1,'))).toBeUndefined();
    expect(checkedRecord(g0.replace(/^\[(\d+),"[^"]*"/, '[$1,7'))).toBeUndefined();
    expect(checkedRecord('"a string"')).toBeUndefined();
    expect(checkedRecord('null')).toBeUndefined();
  });

  for (const [what, damage] of [
    ['a directory', (f: string) => rm(f).then(() => mkdir(f))],
    ['a FIFO', (f: string) => rm(f).then(() => execFileSync('mkfifo', [f]))],
  ] as const)
    it(`answers one 503 Status naming raw.ndjson when it is ${what}`, async () => {
      const { id, files } = await imported();
      await damage(join(files, 'raw.ndjson'));
      for (const url of [`/api/v1/imports/${id}/raw`, `/api/v1/imports/${id}/explain`]) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(503);
        expect(res.json()).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
        expect(res.json().message).toMatch(/raw\.ndjson cannot be read/);
      }
    });

  it('answers one 503 Status naming log.txt when the log is gone', async () => {
    const { id, files } = await imported();
    await rm(join(files, 'log.txt'));
    const res = await get(`/api/v1/imports/${id}/raw`);
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toMatch(/log\.txt cannot be read: ENOENT/);
  });
});
