/**
 * The node aggregates over a real socket: a token-guarded server (buildApp on the simulated node),
 * GET /api/v1/node/aggregates and a real WebSocket on /api/v1/node/aggregates/stream. The loop's seconds,
 * relists and housekeeping runs come from the running engine; a pod deleted through the API is listed with
 * how it left; a socket opened with a cursor gets only what changed after it, at most four messages a second;
 * a bad cursor is a 400 naming the field and a foreign Origin a 403, as the rows stream's. An observing
 * server serves the same from its own trace.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeAggregatesWire } from '@syncscope/core/pod-state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { until } from '../../../../test/support/until.ts';
import { WS_BEARER_PROTOCOL_PREFIX } from '../access.ts';
import { type BuiltApp, buildApp } from '../app.ts';
import type { AggregatesMessage } from '../node-aggregates/aggregates-client.ts';
import { buildObserveApp } from '../observe/app.ts';

const TOKEN = 'node-aggregates-token-0123456789';
let dir: string;
let built: BuiltApp;
let base: string;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syncscope-node-aggregates-'));
  built = await buildApp({ dataDir: dir, examples: false, logger: false, token: TOKEN, warn: () => {} });
  for (const name of ['keep', 'gone'])
    built.engine.addPod({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'default',
        uid: `00000000-0000-4000-8000-00000000000${name === 'keep' ? 1 : 2}`,
        creationTimestamp: new Date(built.clock.now()).toISOString(),
      },
      spec: {
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'app', image: 'busybox', command: ['sleep', '3600'] }],
      },
    });
  base = await built.app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await built?.close();
  await rm(dir, { recursive: true, force: true });
});

async function getAggregates(): Promise<NodeAggregatesWire> {
  const res = await fetch(`${base}/api/v1/node/aggregates`, { headers: auth });
  expect(res.status).toBe(200);
  return (await res.json()) as NodeAggregatesWire;
}

async function openStream(since?: string) {
  const proto = `${WS_BEARER_PROTOCOL_PREFIX}${Buffer.from(TOKEN).toString('base64url')}`;
  const url = `${base.replace('http', 'ws')}/api/v1/node/aggregates/stream${since ? `?since=${since}` : ''}`;
  const ws = new WebSocket(url, ['syncscope', proto]);
  const got: { at: number; m: AggregatesMessage }[] = [];
  ws.on('message', (d) => got.push({ at: performance.now(), m: JSON.parse(String(d)) as AggregatesMessage }));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, got };
}

describe('the node aggregates', () => {
  it('refuses a request without the token, a malformed cursor with the field, and a foreign origin', async () => {
    expect((await fetch(`${base}/api/v1/node/aggregates`)).status).toBe(401);
    const bad = await fetch(`${base}/api/v1/node/aggregates/stream?since=nope`, { headers: auth });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { details?: { causes?: { field: string }[] } };
    expect(body.details?.causes?.[0]?.field).toBe('since');
    const foreign = await fetch(`${base}/api/v1/node/aggregates/stream`, {
      headers: { ...auth, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
  });

  it('serves the loop by source per second, relists and housekeeping, and streams the changes', async () => {
    // the loop runs on while the answer travels: every iteration traced before the request is counted, and
    // none after the answer arrived
    const traced = () => built.trace.since(0).filter((ev) => ev.type === 'loop.iteration').length;
    let before = 0;
    const first = await until('a housekeeping run and a relist', async () => {
      before = traced();
      const a = await getAggregates();
      return a.housekeeping.length > 0 && a.relists.length > 1 ? a : undefined;
    });
    const after = traced();
    expect(first.full).toBe(true);
    const counted = first.loop.reduce((n, s) => n + s.n.reduce((a, b) => a + b, 0), 0);
    expect(counted).toBeGreaterThanOrEqual(before);
    expect(counted).toBeLessThanOrEqual(after);
    expect(first.relists.every((r) => r.durationMs >= 0)).toBe(true);
    expect(first.deleted).toEqual([]);

    const { ws, got } = await openStream(first.cursor);
    await until('the answer to the cursor', () => got.length >= 1);
    expect(got[0]?.m).toMatchObject({ kind: 'aggregates', full: false });
    // every relist already held is not sent again
    const held = new Set(first.relists.map((r) => r.seq));
    const del = await fetch(`${base}/api/v1/namespaces/default/pods/gone`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(del.status).toBeLessThan(300);
    const removed = await until('the removal in a message', () =>
      got.find((g) => g.m.deleted.some((d) => d.name === 'gone'))?.m.deleted.find((d) => d.name === 'gone'),
    );
    expect(removed).toMatchObject({ namespace: 'default', how: 'deleted', source: 'api' });
    await until('two more seconds of messages', () => (got.at(-1)?.at ?? 0) - (got[0]?.at ?? 0) > 2_000);
    ws.close();
    for (const g of got) for (const r of g.m.relists) expect(held.has(r.seq)).toBe(false);
    // coalesced: at most four messages a second (and a margin for the timer's drift)
    const spanS = ((got.at(-1)?.at ?? 0) - (got[0]?.at ?? 0)) / 1000;
    expect(got.length - 1).toBeLessThanOrEqual(Math.ceil(spanS * 4) + 1);

    // a cursor of another run: everything held
    const other = await openStream('zz.1');
    await until('the snapshot', () => other.got.length >= 1);
    expect(other.got[0]?.m.full).toBe(true);
    expect(other.got[0]?.m.deleted.map((d) => d.name)).toEqual(['gone']);
    other.ws.close();
  });
});

describe('the node aggregates of an observing server', () => {
  it('are folded from the observer’s trace', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'syncscope-observe-aggregates-'));
    const observed = await buildObserveApp({
      runtimeEndpoint: `unix://${join(tmp, 'no-runtime.sock')}`,
      dataDir: join(tmp, 'data'),
      token: TOKEN,
      logger: false,
      warn: () => undefined,
    });
    try {
      const pod = { podUID: 'uid-observed', pod: 'kube-system/seen' };
      observed.trace.record({ type: 'config.update', op: 'DELETE', source: 'api', gracePeriodS: 5, ...pod });
      observed.trace.record({ type: 'config.update', op: 'REMOVE', source: 'api', ...pod });
      observed.trace.record({ type: 'pleg.relist', durationMs: 3, pods: 0, containers: 0, events: 0 });
      const res = await observed.app.inject({ url: '/api/v1/node/aggregates', headers: auth });
      expect(res.statusCode).toBe(200);
      const a = res.json() as NodeAggregatesWire;
      expect(a.deleted).toMatchObject([
        { namespace: 'kube-system', name: 'seen', how: 'deleted', graceS: 5 },
      ]);
      expect(a.relists.at(-1)).toMatchObject({ durationMs: 3 });
    } finally {
      await observed.close();
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
