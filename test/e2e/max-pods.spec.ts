/**
 * --max-pods on the real server process (apps/server/src/main.ts, bundled), through HTTP only: past capacity a
 * new pod is created in the API but rejected by the node (Failed, OutOfpods, the kubelet's message, a
 * Warning Event); it counts against nothing and can be deleted. After a restart with a smaller capacity
 * the stored pods are admitted oldest first and the rest rejected, as after a kubelet restart.
 *
 * The server is another process, so waiting is polling its API with a deadline.
 */
import type { Event, Pod } from '@syncscope/core/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServerBundle } from '../support/server-bundle.ts';
import { type ListeningServer, spawnServer, startServer, tempDir } from '../support/server-process.ts';
import { until } from '../support/until.ts';

const DEADLINE_MS = 30_000;
const POLL_MS = 100;

type Server = ListeningServer;
const cleanups: (() => Promise<void>)[] = [];
// the server's main.ts, bundled once: a start costs Node's start, not a TypeScript load of every module
beforeAll(useServerBundle);
let dataDir = '';

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const start = (args: string[], env: Record<string, string> = {}): Promise<Server> =>
  startServer(dataDir, cleanups, env, args);

const poll = <T>(what: string, get: () => Promise<T | undefined>): Promise<T> =>
  until(what, get, DEADLINE_MS, POLL_MS);

const manifest = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'app', image: 'busybox', command: ['sh', '-c', 'sleep 3600'] }],
    },
  });

async function create(s: Server, name: string): Promise<Pod> {
  const res = await fetch(`${s.base}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: manifest(name),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Pod;
}

async function getPod(s: Server, name: string): Promise<Pod | undefined> {
  const res = await fetch(`${s.base}/api/v1/namespaces/default/pods/${name}`);
  return res.status === 200 ? ((await res.json()) as Pod) : undefined;
}

const inPhase = (s: Server, name: string, phase: string) =>
  poll(`${name} ${phase}`, async () => {
    const p = await getPod(s, name);
    return p?.status?.phase === phase ? p : undefined;
  });

const gone = (s: Server, name: string) =>
  poll(`${name} gone`, async () => ((await getPod(s, name)) === undefined ? true : undefined));

const rejected = (used: number, capacity: number) =>
  `Node didn't have enough resource: pods, requested: 1, used: ${used}, capacity: ${capacity}`;

describe('--max-pods', () => {
  it('rejects a pod past capacity as the kubelet does, and admits the oldest stored pods after a restart', async () => {
    dataDir = await tempDir('syncscope-max-pods-', cleanups);
    const a = await start(['--max-pods', '2']);
    for (const n of ['p1', 'p2', 'p3']) await create(a, n);
    await inPhase(a, 'p1', 'Running');
    await inPhase(a, 'p2', 'Running');
    const p3 = await inPhase(a, 'p3', 'Failed');
    expect(p3.status).toMatchObject({ reason: 'OutOfpods', message: `Pod was rejected: ${rejected(2, 2)}` });
    const events = (await (await fetch(`${a.base}/api/v1/events`)).json()) as { items: Event[] };
    expect(
      events.items
        .filter((e) => e.involvedObject.name === 'p3')
        .map((e) => [e.type, e.reason, e.message, e.source?.component]),
    ).toEqual([['Warning', 'OutOfpods', rejected(2, 2), 'kubelet']]);
    const node = (await (await fetch(`${a.base}/api/v1/node`)).json()) as {
      configuration: { maxPods: number };
    };
    expect(node.configuration.maxPods).toBe(2);

    // the same store, a node that holds one pod (set from the environment this time)
    a.proc.kill('SIGTERM');
    expect((await a.exited).code).toBe(0);
    const b = await start([], { MAX_PODS: '1' });
    await inPhase(b, 'p1', 'Running');
    // p2 ran, and is admitted again in creation order: past the new capacity now
    const p2 = await inPhase(b, 'p2', 'Failed');
    expect(p2.status).toMatchObject({ reason: 'OutOfpods', message: `Pod was rejected: ${rejected(1, 1)}` });
    // p3 had failed already: a terminal pod stays as it was reported (its first rejection), never admitted again
    const p3again = await inPhase(b, 'p3', 'Failed');
    expect(p3again.status).toMatchObject({
      reason: 'OutOfpods',
      message: `Pod was rejected: ${rejected(2, 2)}`,
    });

    // a rejected pod can be deleted; deleting the running one makes room for a new pod
    expect((await fetch(`${b.base}/api/v1/namespaces/default/pods/p3`, { method: 'DELETE' })).status).toBe(
      200,
    );
    await gone(b, 'p3');
    expect((await fetch(`${b.base}/api/v1/namespaces/default/pods/p1`, { method: 'DELETE' })).status).toBe(
      200,
    );
    await gone(b, 'p1');
    await create(b, 'p4');
    await inPhase(b, 'p4', 'Running');
    expect((await getPod(b, 'p2'))?.status?.phase).toBe('Failed'); // rejected once, never re-admitted
  });

  it('refuses a --max-pods that is not a whole number', async () => {
    const dir = await tempDir('syncscope-max-pods-', cleanups);
    const bad = spawnServer(dir, cleanups, {}, ['--max-pods', '1.5']);
    const { code } = await bad.exited;
    const err = bad.stderr();
    expect(code).toBe(2);
    expect(err).toContain('--max-pods must be a whole number >= 0, got 1.5');
  });
});
