import { describe, expect, it } from 'vitest';
import { manifestNamespace, traceExportUrl } from './node-actions.ts';

describe('manifestNamespace', () => {
  it('reads metadata.namespace from YAML or JSON, "default" otherwise', () => {
    const yaml =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels:\n    app: a\n  namespace: team-a\nspec: {}\n';
    expect(manifestNamespace(yaml)).toBe('team-a');
    expect(manifestNamespace('metadata:\n  name: a\nspec:\n  namespace: nope\n')).toBe('default');
    expect(manifestNamespace('{"metadata":{"name":"a","namespace":"ops"}}')).toBe('ops');
    expect(manifestNamespace('{not json')).toBe('default');
  });
});

describe('traceExportUrl', () => {
  it('exports the node or one pod', () => {
    expect(traceExportUrl()).toBe('/api/v1/trace/export');
    expect(traceExportUrl('a b')).toBe('/api/v1/trace/export?podUID=a%20b');
  });
});
