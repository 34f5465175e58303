/**
 * The lines of an import no family read: the stored trace holds trace events only, and GET
 * /api/v1/imports/{id}/raw reads each of them back from the log by its byte offsets as the log.raw event the
 * importer made of it (its message exactly, CRLF and multi-byte UTF-8 included, its pod), in its place among
 * the trace's events, so the two merged are the stream the same log imported in one piece gives; by node, by
 * search, paged; bad query parameters are a 400 Status naming the field.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importsApp } from './imports-testing.ts';

const SAMPLE = readFileSync(
  new URL(
    '../../../../packages/core/src/kubelet-log/testdata/03-v1.31-openshift-journald-v2-static-pods-probes-crashloop.log',
    import.meta.url,
  ),
  'utf8',
);
const NODE = 'localhost.localdomain';
/** journald lines of that node, CRLF, multi-byte UTF-8, one naming a pod, one of several lines */
const CRLF = [
  'May 12 05:10:00 localhost.localdomain kubelet.sh[2473]: I0512 05:10:00.000000    2473 x.go:1] "Node note" name="节点 é 😀"',
  'May 12 05:10:01 localhost.localdomain kubelet.sh[2473]: I0512 05:10:01.000000    2473 x.go:2] "Volume note" pod="ns1/a" v="→"',
  'May 12 05:10:02 localhost.localdomain kubelet.sh[2473]: I0512 05:10:02.000000    2473 x.go:3] "Output" out=<',
  'May 12 05:10:02 localhost.localdomain kubelet.sh[2473]: \tline one ✓',
  'May 12 05:10:02 localhost.localdomain kubelet.sh[2473]:  >',
].join('\r\n');

interface RawItem {
  after: number;
  event: TraceEvent & { type: 'log.raw'; text: string; pod?: string };
}
interface RawPage {
  items: RawItem[];
  total: number;
  next: number | null;
}

let dir: string;
let app: FastifyInstance;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-imports-raw-'));
  app = await importsApp(dir);
});
afterEach(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(text: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/imports?name=kubelet.log',
    headers: { 'content-type': 'text/plain' },
    payload: text,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}
const get = (url: string) => app.inject({ method: 'GET', url });
const raw = async (id: string, q: string) => {
  const res = await get(`/api/v1/imports/${id}/raw?${q}`);
  expect(res.statusCode).toBe(200);
  return res.json<RawPage>();
};

/** the stored trace and the unread entries, merged as the page merges them */
async function merged(id: string): Promise<{ trace: TraceEvent[]; all: TraceEvent[] }> {
  const trace = (await get(`/api/v1/imports/${id}/trace?limit=100000`)).json<{ items: TraceEvent[] }>().items;
  const raws: RawItem[] = [];
  for (let since: number | null = 0; since !== null; ) {
    const p = await raw(id, `since=${since}&limit=500`);
    raws.push(...p.items);
    since = p.next;
  }
  const all: TraceEvent[] = [];
  let r = 0;
  const put = (ev: TraceEvent) => all.push({ ...ev, seq: all.length + 1 });
  for (const ev of trace) {
    for (; r < raws.length && (raws[r] as RawItem).after < ev.seq; r++) put((raws[r] as RawItem).event);
    put(ev);
  }
  for (; r < raws.length; r++) put((raws[r] as RawItem).event);
  return { trace, all };
}

describe('GET /api/v1/imports/{id}/raw', () => {
  for (const [name, text] of [
    ['a real journal', SAMPLE],
    ['CRLF lines of multi-byte UTF-8', `${SAMPLE}${CRLF}\r\n`],
    ['a log in two blocks out of time order', `${SAMPLE}${SAMPLE}`],
  ] as const)
    it(`keeps no log.raw event in the trace; merged back, the unread lines are the whole import (${name})`, async () => {
      const id = await post(text);
      const { trace, all } = await merged(id);
      expect(trace.filter((e) => e.type === 'log.raw')).toEqual([]);
      const whole = importKubeletLog(text).events;
      expect(all.filter((e) => e.type === 'log.raw').length).toBeGreaterThan(700);
      expect(all.map((e) => JSON.stringify(e))).toEqual(whole.map((e) => JSON.stringify(e)));
    });

  it('finds each unread line of a node by a text in it, its message exactly', async () => {
    const id = await post(`${SAMPLE}${CRLF}\r\n`);
    const lines = `${SAMPLE}${CRLF}`.split('\n');
    const at = (n: number) => (lines[n - 1] as string).replace(/\r$/, '');
    const found = await raw(id, `node=${NODE}&q=${encodeURIComponent('节点 é 😀')}`);
    expect(found.total).toBe(1);
    const one = found.items[0] as RawItem;
    expect(one.event.text).toBe('"Node note" name="节点 é 😀"');
    expect(at(one.event.origin?.line as number).endsWith(one.event.text)).toBe(true);
    const pod = (await raw(id, `q=${encodeURIComponent('"Volume note"')}`)).items.map((i) => i.event);
    expect(pod.map((e) => [e.pod, e.text])).toEqual([['ns1/a', '"Volume note" pod="ns1/a" v="→"']]);
    const several = (await raw(id, `q=${encodeURIComponent('line one ✓')}`)).items.map((i) => i.event.text);
    expect(several).toEqual(['"Output" out=<\n\tline one ✓\n >']);
    // paged: the node's lines, 100 at a time, are all of them once
    const seen: number[] = [];
    let page = await raw(id, `node=${NODE}&limit=100`);
    for (;;) {
      seen.push(...page.items.map((i) => i.event.origin?.line as number));
      if (page.next === null) break;
      page = await raw(id, `node=${NODE}&limit=100&since=${page.next}`);
    }
    expect(seen.length).toBe(page.total);
    expect(new Set(seen).size).toBe(seen.length);
    expect(await raw(id, `node=nowhere`)).toEqual({ items: [], total: 0, next: null });
  });

  it('refuses a bad ?since=, ?limit=, ?node= or ?q= with 400 naming it, and an unknown id with 404', async () => {
    const id = await post(SAMPLE);
    for (const [q, field] of [
      ['since=-1', 'since'],
      ['since=x', 'since'],
      ['limit=0', 'limit'],
      ['limit=50001', 'limit'],
      [`node=${encodeURIComponent('a\nb')}`, 'node'],
      [`q=${'x'.repeat(257)}`, 'q'],
    ] as const) {
      const bad = await get(`/api/v1/imports/${id}/raw?${q}`);
      expect(bad.statusCode, q).toBe(400);
      expect(bad.json()).toMatchObject({ kind: 'Status', code: 400 });
      expect(bad.json().message).toMatch(new RegExp(field));
    }
    const missing = await get('/api/v1/imports/AAAAAAAAAAAAAAAAAAAAAA/raw');
    expect(missing.statusCode).toBe(404);
  });
});
