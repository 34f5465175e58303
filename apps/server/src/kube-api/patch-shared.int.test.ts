/**
 * Patches in a row on one patch thread, each onto the pod the one before made (as the engine then holds it):
 * the large parts both sides hold cross as references (SharedTrees), and every answer is still the one the
 * event loop computes itself, whether the patch keeps, changes or drops the long env list.
 */
import type { Pod } from '@syncscope/core/api';
import { afterAll, describe, expect, it } from 'vitest';
import { envPod } from './patch-fuzz.ts';
import { type PatchRequest, patchedPod } from './patch-pod.ts';
import { PatchPool, SharedTrees } from './patch-thread.ts';

const STRATEGIC = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';
const env = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ name: `V${i + from}`, value: `${i}` }));
const containers = (image: string, list: unknown[]) =>
  JSON.stringify({ spec: { containers: [{ name: 'app', image, env: list }] } });

const pool = new PatchPool();
afterAll(() => pool.close());

describe('patches in a row on the thread', () => {
  it('answer as the event loop does while the pod they patch shares its parts with the one before', async () => {
    const steps: { type: PatchRequest['type']; body: string }[] = [
      { type: STRATEGIC, body: containers('busybox:1', env(3_000)) },
      { type: STRATEGIC, body: containers('busybox:2', env(3_000)) },
      { type: MERGE, body: '{"metadata":{"labels":{"a":"b"}}}' },
      { type: STRATEGIC, body: containers('busybox:3', env(100, 5_000)) },
      {
        type: MERGE,
        body: JSON.stringify({
          metadata: { annotations: Object.fromEntries(env(40).map((e) => [e.name, e.value])) },
        }),
      },
      { type: STRATEGIC, body: '{"spec":{"containers":[{"name":"app","image":"busybox:4"}]}}' },
      { type: MERGE, body: '{"spec":{"hostname":"x"}}' },
      { type: MERGE, body: '{"metadata":{"annotations":{"V1":null}}}' },
    ];
    let old: Pod = { ...envPod(3_000), metadata: { ...envPod(0).metadata, resourceVersion: '1' } };
    for (const [i, step] of steps.entries()) {
      const req: PatchRequest = { old, ...step, namespace: 'default', name: 'web' };
      const inline = patchedPod(structuredClone(req));
      const answer = await pool.run(req);
      expect(answer, `step ${i}`).toEqual({ patched: inline });
      if ('patched' in answer && answer.patched.ok)
        old = {
          ...answer.patched.pod,
          metadata: { ...answer.patched.pod.metadata, resourceVersion: `${i + 2}` },
        };
    }
  });
});

describe('SharedTrees', () => {
  it('sends a large part the other side holds as a reference, and resolves it to its own copy', () => {
    const loop = new SharedTrees(1);
    const thread = new SharedTrees(-1);
    const list = env(20);
    const first = loop.encode({ spec: { list } });
    const theirs = thread.decode(structuredClone(first)) as { spec: { list: unknown[] } };
    expect(theirs).toEqual({ spec: { list } });
    // the thread answers with a new object holding the same list: it goes back as a reference
    const back = thread.encode(
      { spec: { list: structuredClone(theirs.spec.list), x: 1 } },
      theirs,
      (a, b) => JSON.stringify(a) === JSON.stringify(b),
    );
    loop.settle();
    thread.settle();
    expect(JSON.stringify([...(back as { spec: { list: Map<string, number> } }).spec.list])).toBe(
      '[["ref",1]]',
    );
    const mine = loop.decode(structuredClone(back)) as { spec: { list: unknown[] } };
    expect(mine.spec.list).toBe(list);
    loop.settle();
    // next time the loop sends that list, only its id crosses
    expect(loop.encode({ list }) as { list: unknown }).toEqual({ list: new Map([['ref', 1]]) });
  });
});
