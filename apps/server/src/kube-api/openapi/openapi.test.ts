import { ContainerSchema, PodSpecSchema } from '@syncscope/core/api/pod-schema';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../http.ts';
import { FakeEngine } from '../../testing.ts';

let app: FastifyInstance;

beforeEach(async () => {
  const clock = new FakeClock();
  app = await createHttpApp({ engine: new FakeEngine(clock), trace: new TraceRecorder(clock, 100), clock });
});
afterEach(() => app.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers });

type Schema = { properties: Record<string, Record<string, unknown>>; required?: string[] };

describe('the OpenAPI v3 documents', () => {
  it('index core v1 by a hash the document is served under, cacheable for good', async () => {
    const index = (await get('/openapi/v3')).json();
    const url = index.paths['api/v1'].serverRelativeURL as string;
    expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await get(url);
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['cache-control']).toBe('public, immutable');
    expect((await get(url, { 'if-none-match': doc.headers.etag as string })).statusCode).toBe(304);
  });

  it('describe the Pod with every field the server decodes, and the kinds of the API', async () => {
    const { components, paths } = (await get('/openapi/v3/api/v1')).json();
    const schemas = components.schemas as Record<string, Schema & Record<string, unknown>>;
    const spec = schemas['io.k8s.api.core.v1.PodSpec'] as Schema;
    expect(Object.keys(spec.properties).sort()).toEqual(Object.keys(PodSpecSchema.properties).sort());
    expect(spec.required).toEqual(['containers']);
    expect(spec.properties.containers).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' },
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    const container = schemas['io.k8s.api.core.v1.Container'] as Schema;
    expect(Object.keys(container.properties).sort()).toEqual(Object.keys(ContainerSchema.properties).sort());
    expect(container.properties.ports?.items).toEqual({
      $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort',
    });
    for (const kind of ['Pod', 'Event', 'Node', 'Namespace', 'PodList'])
      expect(schemas[`io.k8s.api.core.v1.${kind}`]?.['x-kubernetes-group-version-kind']).toEqual([
        { group: '', version: 'v1', kind },
      ]);
    for (const name of ['Status', 'DeleteOptions', 'Table', 'List', 'WatchEvent'])
      expect(schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`]).toBeDefined();
    // the PATCH kubectl looks for: fieldValidation among its parameters means "the server validates"
    const patch = paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Pod' });
    expect(patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
  });
});

describe('the OpenAPI v2 document', () => {
  it('is JSON with the same definitions', async () => {
    const doc = (await get('/openapi/v2', { accept: 'application/json' })).json();
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions['io.k8s.api.core.v1.Pod'].properties.spec).toEqual({
      $ref: '#/definitions/io.k8s.api.core.v1.PodSpec',
    });
  });
});
