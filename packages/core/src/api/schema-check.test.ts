import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { WIRE_POD_SCHEMA } from './pod-schema.ts';
import { fieldPath, lazyCheck } from './schema-check.ts';

describe('lazyCheck', () => {
  it('answers the same compiled (Node) and walked (a page under its CSP)', () => {
    const schema = Type.Object({
      seq: Type.Integer({ minimum: 0 }),
      actions: Type.Array(Type.Object({ target: Type.String() })),
    });
    const samples: unknown[] = [
      { seq: 1, actions: [{ target: 'app' }], extra: true },
      { seq: 1, actions: [{}] },
      { seq: -1, actions: [] },
      null,
      'x',
    ];
    const compiled = lazyCheck(schema, true);
    const walked = lazyCheck(schema, false);
    expect(samples.map((s) => compiled(s))).toEqual([true, false, false, false, false]);
    expect(samples.map((s) => walked(s))).toEqual(samples.map((s) => compiled(s)));
    const pod = { spec: { containers: [{ name: 'a', ports: [{ containerPort: 2 ** 31 }] }] } };
    expect(lazyCheck(WIRE_POD_SCHEMA, false)(pod)).toBe(false);
    expect(lazyCheck(WIRE_POD_SCHEMA, true)(pod)).toBe(false);
  });
});

describe('fieldPath', () => {
  it('names a field as the API server does, reading array indexes and escaped keys from the value', () => {
    const v = { spec: { containers: [{ ports: [{}] }] }, metadata: { labels: { '0': 'x', 'a/b': 'y' } } };
    expect(fieldPath(v, '/spec/containers/0/ports/0/name')).toBe('spec.containers[0].ports[0].name');
    expect(fieldPath(v, '/metadata/labels/0')).toBe('metadata.labels.0');
    expect(fieldPath(v, '/metadata/labels/a~1b')).toBe('metadata.labels.a/b');
    expect(fieldPath(v, '')).toBe('');
  });
});
