import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { afterAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { type Adversary, adversary, envPod, prng } from './patch-fuzz.ts';
import { type PatchRequest, patchedPod } from './patch-pod.ts';
import { PatchPool } from './patch-thread.ts';
import { PATCH_THREAD_MIN_CHARS, patchPod, type WriteContext } from './pod-writes.ts';

const SEED = 12;
const CASES = 24;
const MiB = 2 ** 20;
const STRATEGIC = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';

const pod = envPod;

const envMerge = (entries: number, image: string) =>
  JSON.stringify({
    spec: {
      containers: [
        {
          name: 'app',
          image,
          env: Array.from({ length: entries }, (_, i) => ({ name: `V${i}`, value: `${i}` })),
        },
      ],
    },
  });

/** The adversaries, then patches that succeed, refuse and carry a `__proto__` member. */
function cases(maxBytes: number): Adversary[] {
  const rnd = prng(SEED);
  const out = Array.from({ length: CASES }, () => adversary(rnd, maxBytes));
  out.push(
    { name: 'env merge, new image', type: STRATEGIC, body: envMerge(1_000, 'busybox:2') },
    { name: 'env merge, nothing changed', type: STRATEGIC, body: envMerge(1_000, 'busybox') },
    { name: 'a field a pod may not change', type: MERGE, body: '{"spec":{"hostname":"x"}}' },
    { name: 'not JSON', type: MERGE, body: '{"spec":' },
    {
      name: 'a __proto__ annotation',
      type: MERGE,
      body: '{"metadata":{"annotations":{"__proto__":"x","a":"b"}}}',
    },
  );
  return out;
}

/** What one request comes to, as text: the answer or what was thrown. */
function inline(req: PatchRequest): string {
  try {
    return JSON.stringify(patchedPod(req));
  } catch (e) {
    return `threw ${(e as Error).message}`;
  }
}

describe('the patch thread answers as the event loop does', () => {
  const pool = new PatchPool();
  afterAll(() => pool.close());
  const old = { ...pod(2_000), metadata: { ...pod(0).metadata, resourceVersion: '7' } };

  it.each(cases(MiB).map((c) => [c.name, c] as const))(
    '%s',
    async (_, c) => {
      const req: PatchRequest = { old, type: c.type, body: c.body, namespace: 'default', name: 'web' };
      const answer = await pool.run(req);
      const threaded = 'error' in answer ? `threw ${answer.error}` : JSON.stringify(answer.patched);
      expect(threaded).toBe(inline(req));
    },
    60_000,
  );
});

describe('the PATCH route, inline and on the thread', () => {
  // bodies the route works out inline, then the same padded with spaces past the threshold
  it.each(cases(PATCH_THREAD_MIN_CHARS).map((c) => [c.name, c] as const))(
    '%s',
    async (_, c) => {
      expect(c.body.length).toBeLessThanOrEqual(PATCH_THREAD_MIN_CHARS);
      const answers: string[] = [];
      const padding = ' '.repeat(PATCH_THREAD_MIN_CHARS + 1);
      for (const body of [c.body, `${c.body}${padding}`]) {
        const clock = new FakeClock();
        const engine = new FakeEngine(clock);
        engine.addPod(pod(2_000));
        const app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock });
        const res = await app.inject({
          method: 'PATCH',
          url: '/api/v1/namespaces/default/pods/web',
          headers: { 'content-type': c.type },
          payload: body,
        });
        answers.push(`${res.statusCode} ${res.body}`);
        await app.close();
      }
      expect(answers[1]).toBe(answers[0]);
    },
    60_000,
  );
});

describe('a thread that dies under a patch', () => {
  it('fails that request (out of memory), and the next request gets a new thread', async () => {
    const pool = new PatchPool({ maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 });
    const req: PatchRequest = {
      old: pod(28_000),
      type: STRATEGIC,
      body: envMerge(28_000, 'busybox:2'),
      namespace: 'default',
      name: 'web',
    };
    await expect(pool.run(req)).rejects.toMatchObject({ outOfMemory: true });
    const small = { ...req, old: pod(10), body: '{"metadata":{"labels":{"a":"b"}}}' };
    await expect(pool.run(small)).resolves.toMatchObject({ patched: { ok: true } });
    await pool.close();
  }, 60_000);
});

describe('a pod that changes while its patch is on the thread', () => {
  const labels = (l: Record<string, string>) =>
    `${JSON.stringify({ metadata: { labels: l } })}${' '.repeat(PATCH_THREAD_MIN_CHARS + 1)}`;
  const target = { ns: 'default', name: 'web' };
  const MERGE_TYPE = 'application/merge-patch+json';

  it('is patched again as it is now', async () => {
    const clock = new FakeClock();
    const engine = new FakeEngine(clock);
    engine.addPod(pod(10));
    let rv = 1;
    const ctx: WriteContext = { engine, clock, versions: { version: () => rv, listVersion: () => rv } };
    const patching = patchPod(ctx, target, labels({ a: '1' }), MERGE_TYPE);
    // an update that lands while the patch is on the thread
    expect(await patchPod(ctx, target, '{"metadata":{"labels":{"b":"2"}}}', MERGE_TYPE)).toMatchObject({
      metadata: { labels: { b: '2' } },
    });
    rv++;
    expect(await patching).toMatchObject({ metadata: { labels: { a: '1', b: '2' } } });
  }, 60_000);

  it('is 409 Conflict when it changes every time', async () => {
    const clock = new FakeClock();
    const engine = new FakeEngine(clock);
    engine.addPod(pod(10));
    let rv = 1;
    const ctx: WriteContext = { engine, clock, versions: { version: () => rv++, listVersion: () => rv } };
    expect(await patchPod(ctx, target, labels({ a: '1' }), MERGE_TYPE)).toMatchObject({
      kind: 'Status',
      code: 409,
      reason: 'Conflict',
    });
  }, 60_000);
});
