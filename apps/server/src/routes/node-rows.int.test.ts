/**
 * The node rows over a real socket: a token-guarded server (buildApp on the simulated node, its pods running
 * `sleep` and quiet until a fault ends one's container), GET /api/v1/node/rows and a real WebSocket on
 * /api/v1/node/rows/stream. A change of one pod among many sends that pod's row alone, once per batch however
 * many events it took; a socket opened again with the last cursor gets only what changed while it was
 * away; a cursor the server cannot resume gets every row; a bad cursor is a 400 naming the field.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeRows, type PodRowSummary, type WireRows } from '@syncscope/core/pod-state';
import { podUIDOf } from '@syncscope/core/trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { until } from '../../../../test/support/until.ts';
import { WS_BEARER_PROTOCOL_PREFIX } from '../access.ts';
import { type BuiltApp, buildApp } from '../app.ts';
import type { RowsMessage } from '../node-rows/rows-client.ts';

const TOKEN = 'node-rows-token-0123456789';
const PODS = 20;
let dir: string;
let built: BuiltApp;
let base: string;
const auth = { authorization: `Bearer ${TOKEN}` };
const uid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-node-rows-'));
  built = await buildApp({
    dataDir: dir,
    examples: false,
    logger: false,
    token: TOKEN,
    warn: () => {},
  });
  const now = new Date(built.clock.now()).toISOString();
  for (let i = 1; i <= PODS; i++)
    built.engine.addPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `p-${i}`, namespace: 'default', uid: uid(i), creationTimestamp: now },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }],
      },
    });
  base = await built.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await built?.close();
  await rm(dir, { recursive: true, force: true });
});

async function getRows(): Promise<{ cursor: string; rows: PodRowSummary[] }> {
  const res = await fetch(`${base}/api/v1/node/rows`, { headers: auth });
  expect(res.status).toBe(200);
  const page = (await res.json()) as { cursor: string } & WireRows;
  return { cursor: page.cursor, rows: decodeRows(page) };
}

/** The cursor once no row has changed for two seconds (the pods' start-up is over). */
async function quiet(): Promise<string> {
  let cursor = '';
  let since = performance.now();
  return until(
    'the rows to settle',
    async () => {
      const now = (await getRows()).cursor;
      if (now !== cursor) {
        cursor = now;
        since = performance.now();
      }
      return performance.now() - since >= 2_000 && cursor;
    },
    60_000,
    100,
  );
}

/** The pods with an event at or after `seq`. */
function podsWithEvents(seq: number): Set<string> {
  return new Set(built.trace.since(seq - 1).flatMap((ev) => podUIDOf(ev) ?? []));
}

/** The simulated node ends the pod's container as if it exited by itself. */
async function exitContainer(pod: string): Promise<void> {
  const res = await fetch(`${base}/api/v1/sim/faults`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'containerExit', namespace: 'default', pod, container: 'app', exitCode: 1 }),
  });
  expect(res.status).toBeLessThan(300);
}

type Batch = Omit<RowsMessage, 'rows'> & { rows: PodRowSummary[] };

/** A socket on the stream, with every message it got and when. */
async function openStream(since?: string) {
  const proto = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from(TOKEN).toString('base64url')}`;
  const url = `${base.replace('http', 'ws')}/api/v1/node/rows/stream${since ? `?since=${since}` : ''}`;
  const ws = new WebSocket(url, ['syncscope', proto]);
  const got: Batch[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d)) as RowsMessage;
    got.push({ ...m, rows: decodeRows(m) });
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, got };
}

describe('the node rows', () => {
  it('refuses a request without the token and a malformed cursor with the field', async () => {
    expect((await fetch(`${base}/api/v1/node/rows`)).status).toBe(401);
    const bad = await fetch(`${base}/api/v1/node/rows/stream?since=nope`, { headers: auth });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { details?: { causes?: { field: string }[] } };
    expect(body.details?.causes?.[0]?.field).toBe('since');
  });

  it("answers ?namespace=&name= with that pod's row alone, and a half or misspelt pair with a 400", async () => {
    const one = await until('p-2 has a row', async () => {
      const res = await fetch(`${base}/api/v1/node/rows?namespace=default&name=p-2`, { headers: auth });
      const page = (await res.json()) as { cursor: string } & WireRows;
      return page.rows.length === 1 ? { cursor: page.cursor, rows: decodeRows(page) } : undefined;
    });
    expect(one.rows[0]).toMatchObject({ uid: uid(2), namespace: 'default', name: 'p-2' });
    expect(one.cursor).toMatch(/^[0-9a-z]+\.\d+$/);
    const none = await fetch(`${base}/api/v1/node/rows?namespace=other&name=p-2`, { headers: auth });
    expect(((await none.json()) as WireRows).rows).toEqual([]);
    for (const [query, field] of [
      ['name=p-2', 'namespace'],
      ['namespace=default', 'name'],
      ['namespace=default&name=P_2', 'name'],
    ] as const) {
      const res = await fetch(`${base}/api/v1/node/rows?${query}`, { headers: auth });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { details?: { causes?: { field: string }[] } };
      expect(body.details?.causes?.[0]?.field, query).toBe(field);
    }
  });

  // as the query string spells them, and the value the server read
  it.each([
    ['', ''],
    ['1.', '1.'],
    ['.1', '.1'],
    ['a.b', 'a.b'],
    ['1.2.3', '1.2.3'],
    ['1.1234567890123456', '1.1234567890123456'],
    ['12345678901234567.1', '12345678901234567.1'],
    ['%20', ' '],
    ['1.-1', '1.-1'],
    ['A.1', 'A.1'],
  ])('answers ?since=%s with a 400 Status naming since and what it must be', async (raw, read) => {
    const res = await fetch(`${base}/api/v1/node/rows/stream?since=${raw}`, { headers: auth });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      kind: string;
      reason: string;
      message: string;
      details?: { causes?: { field: string; reason: string; message: string }[] };
    };
    expect(body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    expect(body.message).toBe(
      `invalid value for ?since=${JSON.stringify(read)}: must be a cursor this server gave, "<run>.<batch>"`,
    );
    expect(body.details?.causes).toEqual([
      {
        field: 'since',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(read)}: must be a cursor this server gave, "<run>.<batch>"`,
      },
    ]);
  });

  it('sends only the row of the pod that changed, once per batch, and resumes by cursor', async () => {
    const first = await until(
      'every pod running',
      async () => {
        const r = await getRows();
        return r.rows.length === PODS &&
          r.rows.every((x) => x.status.text === 'Running' && x.ready.text === '1/1')
          ? r
          : undefined;
      },
      60_000,
    );
    expect(first.rows.find((r) => r.name === 'p-1')).toMatchObject({
      namespace: 'default',
      graceS: 30,
      restarts: { text: '0', basis: 'stated' },
    });
    const settled = await quiet();
    const held = new Map((await getRows()).rows.map((r) => [r.uid, JSON.stringify(r)]));

    const { ws, got } = await openStream(settled);
    await until('the answer to the cursor', () => got.length >= 1);
    expect(got[0]).toMatchObject({ kind: 'rows', full: false });
    const seqBefore = built.trace.next;
    await exitContainer('p-3');
    await until('p-3 restarted in a batch', () =>
      got.some((m) => m.rows.some((r) => r.uid === uid(3) && r.restartCount === 1)),
    );
    const last = got.at(-1) as Batch;
    ws.close();
    const touched = podsWithEvents(seqBefore);
    const p3Events = built.trace.since(seqBefore - 1, (ev) => 'podUID' in ev && ev.podUID === uid(3));
    // coalesced: fewer batches than the pod's events, each row at most once in a batch
    expect(got.length).toBeLessThan(p3Events.length);
    for (const m of got) {
      expect(m.full).toBe(false);
      expect(new Set(m.rows.map((r) => r.uid)).size).toBe(m.rows.length);
      for (const r of m.rows) {
        // only a row that changed: of a pod with events, and not as the client already holds it
        expect(touched.has(r.uid), `${r.name} had no event`).toBe(true);
        expect(JSON.stringify(r)).not.toBe(held.get(r.uid));
        held.set(r.uid, JSON.stringify(r));
      }
    }
    // the node was quiet: the restart is the one pod in the batches
    expect(new Set(got.flatMap((m) => m.rows.map((r) => r.name)))).toEqual(new Set(['p-3']));

    // away while another pod changes: the resume brings that one and nothing unchanged
    await exitContainer('p-5');
    await until('p-5 restarted', async () =>
      (await getRows()).rows.some((r) => r.uid === uid(5) && r.restartCount === 1),
    );
    const again = await openStream(last.cursor);
    await until('the resume', () => again.got.length >= 1);
    const resumed = again.got[0] as Batch;
    expect(resumed.full).toBe(false);
    expect(resumed.rows.map((r) => r.name)).toContain('p-5');
    const away = podsWithEvents(seqBefore);
    for (const r of resumed.rows) expect(away.has(r.uid), `${r.name} had no event`).toBe(true);
    again.ws.close();

    // a cursor of another run: every row
    const other = await openStream('zz.1');
    await until('the snapshot', () => other.got.length >= 1);
    expect(other.got[0]?.full).toBe(true);
    expect(other.got[0]?.rows.length).toBe(PODS);
    other.ws.close();
  });
});
