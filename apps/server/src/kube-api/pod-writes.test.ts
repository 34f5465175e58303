/**
 * The pod write routes answer a bad or oversized body with a 4xx Status, never a 500 or a blocked server:
 * a PUT without a spec, a patch nested past what a pod may be, a JSON patch that copies the document into
 * itself, a patch whose result is deeper or larger than a pod may be; and a strategic merge of a long list
 * is merged by key (the same list sent back with a new image is applied).
 */
import type { Pod } from '@syncscope/core/api';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { copyDoubling } from './patch-fuzz.ts';

const URL = '/api/v1/namespaces/default/pods/web';
const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

let app: FastifyInstance;
let engine: FakeEngine;

function addPod(extra: Partial<Pod['metadata']> = {}, env: { name: string; value: string }[] = []): void {
  engine.addPod(
    setPodDefaults({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', uid: 'u1', ...extra },
      spec: { containers: [{ name: 'app', image: 'busybox', ...(env.length > 0 ? { env } : {}) }] },
    }),
  );
}

// one app (and so one patch thread) for the file; each test starts from an engine without pods
beforeAll(async () => {
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock });
});
beforeEach(() => {
  engine.pods.clear();
});
afterAll(() => app.close());

const send = (method: 'PUT' | 'PATCH', type: string, body: string) =>
  app.inject({ method, url: URL, headers: { 'content-type': type }, payload: body });

describe('pod writes refuse bad bodies with a 4xx Status', () => {
  it('a PUT without spec is 422 Invalid naming the field', async () => {
    addPod();
    const res = await send(
      'PUT',
      'application/json',
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"}}',
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      message: 'Pod "web" is invalid: spec: Required value',
      details: { causes: [{ field: 'spec', reason: 'FieldValueRequired' }] },
    });
    // a merge patch that removes the spec is refused the same way
    const patched = await send('PATCH', MERGE, '{"spec":null}');
    expect([patched.statusCode, patched.json().message]).toEqual([
      422,
      'Pod "web" is invalid: spec: Required value',
    ]);
  });

  it('a patch nested 20,000 deep is 400 BadRequest, for each patch type', async () => {
    addPod();
    const depth = 20_000;
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const bodies: [string, string][] = [
      [MERGE, nested],
      [STRATEGIC, `{"spec":${nested}}`],
      [JSON_PATCH, `[{"op":"add","path":"/spec/x","value":${'['.repeat(depth)}${']'.repeat(depth)}}]`],
    ];
    for (const [type, body] of bodies) {
      const res = await send('PATCH', type, body);
      expect(res.statusCode, type).toBe(400);
      expect(res.json(), type).toMatchObject({
        reason: 'BadRequest',
        message: 'error decoding patch: the patch is nested deeper than 102 levels',
      });
    }
  });

  it('the 963- and 1,147-byte copy doublings are 422, json-patch words, the pod unchanged', async () => {
    addPod();
    for (const bytes of [963, 1147]) {
      const res = await send('PATCH', JSON_PATCH, copyDoubling(bytes));
      expect(res.statusCode).toBe(422);
      expect(res.json().message).toMatch(
        /^Unable to complete the copy, the accumulated number of values copied/,
      );
    }
    expect(engine.getPodByUID('u1')?.metadata).not.toHaveProperty('a');
  }, 60_000);

  it('10,001 operations is 413 RequestEntityTooLarge, as the apiserver says it', async () => {
    addPod();
    const ops = JSON.stringify(Array(10_001).fill({ op: 'test', path: '/metadata/name', value: 'web' }));
    const res = await send('PATCH', JSON_PATCH, ops);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
  });

  it('a patched pod larger than a body may be is 413; one deeper than a pod may be is 422 on `patch`', async () => {
    addPod({ annotations: { a: 'x'.repeat(700_000) } });
    const large = await send(
      'PATCH',
      MERGE,
      JSON.stringify({ metadata: { annotations: { b: 'y'.repeat(700_000) } } }),
    );
    expect(large.statusCode).toBe(413);
    expect(large.json().message).toBe(
      'Request entity too large: the patched pod is larger than the limit of 1048576 bytes',
    );
    // 60 levels added, then copied 60 levels down into themselves: 120 deep
    const value = JSON.parse(`${'['.repeat(60)}${']'.repeat(60)}`) as unknown;
    const ops = [
      { op: 'add', path: '/spec/x', value },
      { op: 'copy', from: '/spec/x', path: `/spec/x${'/0'.repeat(58)}/-` },
    ];
    const deep = await send('PATCH', JSON_PATCH, JSON.stringify(ops));
    expect(deep.statusCode).toBe(422);
    expect(deep.json()).toMatchObject({
      reason: 'Invalid',
      details: { causes: [{ field: 'patch', reason: 'FieldValueInvalid' }] },
    });
  });
});

describe('strategic merge of a long list', () => {
  it('10,000 env entries sent back with a new image: the image changes, the env stays as it was', async () => {
    const env = Array.from({ length: 10_000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` }));
    addPod({}, env);
    const patch = { spec: { containers: [{ name: 'app', image: 'busybox:2', env: [...env].reverse() }] } };
    const res = await send('PATCH', STRATEGIC, JSON.stringify(patch));
    expect(res.statusCode, res.body.slice(0, 600)).toBe(200);
    const pod = res.json() as Pod;
    expect(pod.spec.containers[0]?.image).toBe('busybox:2');
    expect(pod.spec.containers[0]?.env).toEqual(env);
  }, 60_000);
});
