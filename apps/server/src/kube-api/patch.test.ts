import { describe, expect, it } from 'vitest';
import { type Json, jsonPatch, mergePatch, PatchError, strategicMerge } from './patch.ts';

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
