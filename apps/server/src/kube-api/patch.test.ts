import { describe, expect, it } from 'vitest';
import { type Json, jsonBounds, jsonPatch, mergePatch, PatchError, strategicMerge } from './patch.ts';
import { copyDoubling } from './patch-fuzz.ts';

/** The PatchError `f` throws (fails the test if it throws nothing or something else). */
function patchError(f: () => unknown): PatchError {
  try {
    f();
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error('no PatchError');
}

const pod = {
  metadata: { name: 'web', labels: { app: 'web', tier: 'a' } },
  spec: {
    containers: [
      { name: 'app', image: 'busybox', env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'busybox' },
    ],
  },
} as unknown as Json;

describe('merge patch (RFC 7386)', () => {
  it('merges maps, removes a key on null, replaces lists', () => {
    const out = mergePatch(pod, {
      metadata: { labels: { tier: null, x: 'y' } },
      spec: { containers: [] },
    }) as {
      metadata: { labels: Record<string, string> };
      spec: { containers: unknown[] };
    };
    expect(out.metadata.labels).toEqual({ app: 'web', x: 'y' });
    expect(out.spec.containers).toEqual([]);
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('add, replace, remove, move, copy and test in order; the target is not changed', () => {
    const before = JSON.stringify(pod);
    const out = jsonPatch(pod, [
      { op: 'test', path: '/metadata/name', value: 'web' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'busybox:2' },
      { op: 'add', path: '/metadata/labels/new', value: 'v' },
      { op: 'remove', path: '/metadata/labels/tier' },
      { op: 'copy', from: '/metadata/labels/app', path: '/metadata/labels/copied' },
      { op: 'move', from: '/metadata/labels/new', path: '/metadata/labels/moved' },
      { op: 'add', path: '/spec/containers/-', value: { name: 'third', image: 'busybox' } },
    ]) as {
      metadata: { labels: Record<string, string> };
      spec: { containers: { name: string; image: string }[] };
    };
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app', 'side', 'third']);
    expect(out.spec.containers[0]?.image).toBe('busybox:2');
    expect(out.metadata.labels).toEqual({ app: 'web', copied: 'web', moved: 'v' });
    expect(JSON.stringify(pod)).toBe(before);
  });

  it('a failed test, a missing path or an unknown op throws PatchError', () => {
    expect(() => jsonPatch(pod, [{ op: 'test', path: '/metadata/name', value: 'x' }])).toThrow(PatchError);
    expect(() => jsonPatch(pod, [{ op: 'remove', path: '/nope/deeper' }])).toThrow(PatchError);
    expect(() => jsonPatch(pod, [{ op: 'frobnicate', path: '/a' }])).toThrow(PatchError);
    expect(() => jsonPatch(pod, { op: 'add' })).toThrow(PatchError);
  });
});

describe('strategic merge patch', () => {
  it('merges containers by name and env by name, keeping what the patch does not name', () => {
    const out = strategicMerge(pod, {
      spec: { containers: [{ name: 'app', image: 'busybox:2', env: [{ name: 'B', value: '2' }] }] },
    }) as { spec: { containers: { name: string; image: string; env?: { name: string }[] }[] } };
    expect(out.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ['app', 'busybox:2'],
      ['side', 'busybox'],
    ]);
    expect(out.spec.containers[0]?.env?.map((e) => e.name)).toEqual(['A', 'B']);
  });

  it('reads $patch delete and replace, $setElementOrder and $deleteFromPrimitiveList', () => {
    const out = strategicMerge(pod, {
      metadata: { labels: { $patch: 'replace', only: 'this' } },
      spec: { containers: [{ name: 'side', $patch: 'delete' }] },
    }) as { metadata: { labels: Record<string, string> }; spec: { containers: { name: string }[] } };
    expect(out.metadata.labels).toEqual({ only: 'this' });
    expect(out.spec.containers.map((c) => c.name)).toEqual(['app']);

    const ordered = strategicMerge(pod, {
      spec: {
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'busybox:3' }],
      },
    }) as { spec: { containers: { name: string }[] } };
    expect(ordered.spec.containers.map((c) => c.name)).toEqual(['side', 'app']);

    const dropped = strategicMerge(
      { finalizers: ['a', 'b'] },
      { '$deleteFromPrimitiveList/finalizers': ['a'] },
    );
    expect(dropped).toEqual({ finalizers: ['b'] });
  });

  it('a merged list item without its merge key is refused', () => {
    expect(() => strategicMerge(pod, { spec: { containers: [{ image: 'x' }] } })).toThrow(PatchError);
  });
});

describe('work bounded by the patch', () => {
  it('copy doubling of 963 and 1,147 bytes is refused (422) after 100,000 values copied', () => {
    for (const bytes of [963, 1147]) {
      const body = copyDoubling(bytes);
      expect(body.length).toBe(bytes);
      const e = patchError(() => jsonPatch(pod, JSON.parse(body)));
      expect(e.code).toBe(422);
      expect(e.message).toMatch(
        /^Unable to complete the copy, the accumulated number of values copied is \d+, exceeding the limit 100000$/,
      );
    }
    // within the limit a copy of a list into itself is applied as RFC 6902 says
    const out = jsonPatch({ a: [1] }, JSON.parse(copyDoubling(150))) as { a: Json[] };
    expect(JSON.stringify(out.a.slice(0, 3))).toBe('[1,[1],[1,[1]]]');
    // past 3 MiB of copies as JSON, as json-patch's AccumulatedCopySizeLimit
    const big = { op: 'add', path: '/s', value: 'x'.repeat(1_000_000) };
    const copies = [0, 1, 2, 3].map((i) => ({ op: 'copy', from: '/s', path: `/c${i}` }));
    expect(patchError(() => jsonPatch({}, [big, ...copies])).message).toBe(
      'Unable to complete the copy, the accumulated size increase of copy is 4000008, exceeding the limit 3145728',
    );
  });

  it('more than 10,000 operations is 413 with the apiserver words; a splice-heavy patch past its work is 413', () => {
    const ops = Array(10_001).fill({ op: 'test', path: '/metadata/name', value: 'web' });
    const many = patchError(() => jsonPatch(pod, ops));
    expect([many.code, many.message]).toEqual([
      413,
      'The allowed maximum operations in a JSON patch is 10000, got 10001',
    ]);
    expect(() => jsonPatch(pod, ops.slice(1))).not.toThrow();
    const limits = { maxOperations: 100, maxCopyBytes: 1000, maxCopyValues: 1000, maxWork: 1000 };
    const head = [
      { op: 'add', path: '/l', value: Array(100).fill(0) },
      ...Array(20).fill({ op: 'add', path: '/l/0', value: 1 }),
    ];
    expect(patchError(() => jsonPatch({}, head, limits)).code).toBe(413);
    expect(() => jsonPatch({}, head.slice(0, 9), limits)).not.toThrow();
  });

  it('a key named __proto__ or constructor is a member like any other', () => {
    const out = jsonPatch({}, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'copy', from: '/__proto__', path: '/x' },
    ]) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'x']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(() => jsonPatch({}, [{ op: 'copy', from: '/constructor', path: '/y' }])).toThrow(PatchError);
    const merged = mergePatch({}, JSON.parse('{"__proto__":{"a":1}}')) as Record<string, unknown>;
    expect(Object.keys(merged)).toEqual(['__proto__']);
  });

  it('jsonBounds stops at the first level or byte too many', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as Json;
    expect(jsonBounds(deep, 100, Number.POSITIVE_INFINITY)).toBe('deep');
    expect(jsonBounds({ a: [1, { b: 'c' }] }, 3, 100)).toBeUndefined();
    expect(jsonBounds({ a: [1, { b: 'c' }] }, 2, 100)).toBe('deep');
    expect(jsonBounds({ a: 'x'.repeat(2000) }, 10, 1000)).toBe('large');
  });
});

describe('strategic merge of long lists', () => {
  it('merges 10,000 env entries into 10,000 by name: kept, merged, added, deleted and ordered', () => {
    const n = 10_000;
    const target = { env: Array.from({ length: n }, (_, i) => ({ name: `V${i}`, value: 'old' })) };
    const patch = {
      '$setElementOrder/env': Array.from({ length: n }, (_, i) => ({ name: `V${n + 5_000 - 1 - i}` })),
      env: [
        ...Array.from({ length: n }, (_, i) => ({ name: `V${i + 5_000}`, value: 'new' })),
        ...Array.from({ length: 1_000 }, (_, i) => ({ name: `V${i}`, $patch: 'delete' })),
      ],
    };
    // linear: a quadratic merge of these lists (10^8 key comparisons) runs past the test's timeout
    const out = strategicMerge(target, patch) as { env: { name: string; value: string }[] };
    // V1000..V4999 kept (after the ordered ones), V5000..V14999 merged or added, in the order given
    expect(out.env.length).toBe(14_000);
    expect(out.env[0]).toEqual({ name: 'V14999', value: 'new' });
    expect(out.env[n - 1]).toEqual({ name: 'V5000', value: 'new' });
    expect(out.env[n]).toEqual({ name: 'V1000', value: 'old' });
    expect(out.env.at(-1)).toEqual({ name: 'V4999', value: 'old' });
    expect(new Set(out.env.map((e) => e.name)).size).toBe(14_000);
  });
});
