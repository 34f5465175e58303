import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

let app: FastifyInstance;
let trace: TraceRecorder;

beforeEach(async () => {
  const clock = new FakeClock();
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine: new FakeEngine(clock), trace, clock });
  await app.inject({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: 'team-a' } } });
});
afterEach(() => app.close());

const get = async (name: string) => (await app.inject(`/api/v1/namespaces/${name}`)).json();
const patch = (name: string, type: string, body: unknown, query = '') =>
  app.inject({
    method: 'PATCH',
    url: `/api/v1/namespaces/${name}${query}`,
    headers: { 'content-type': type },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
const MERGE = 'application/merge-patch+json';

describe('namespace update and patch: labels and annotations, as kubectl label and annotate change them', () => {
  it('merge, strategic and JSON patches change labels and annotations; the name label stays', async () => {
    const merged = await patch('team-a', MERGE, {
      metadata: { labels: { env: 'dev' }, annotations: { owner: 'ana' } },
    });
    expect(merged.statusCode).toBe(200);
    expect(merged.json().metadata).toMatchObject({
      labels: { env: 'dev', 'kubernetes.io/metadata.name': 'team-a' },
      annotations: { owner: 'ana' },
    });
    const strategic = await patch('team-a', 'application/strategic-merge-patch+json', {
      metadata: { labels: { env: null, tier: 'web' } },
    });
    expect(strategic.json().metadata.labels).toEqual({
      tier: 'web',
      'kubernetes.io/metadata.name': 'team-a',
    });
    const json = await patch('team-a', 'application/json-patch+json', [
      { op: 'remove', path: '/metadata/labels/kubernetes.io~1metadata.name' },
      { op: 'remove', path: '/metadata/annotations' },
    ]);
    expect(json.statusCode).toBe(200);
    expect((await get('team-a')).metadata).not.toHaveProperty('annotations');
    expect((await get('team-a')).metadata.labels).toEqual({
      tier: 'web',
      'kubernetes.io/metadata.name': 'team-a',
    });
  });

  it('a namespace known only from a default one can be labelled too, and a dry run keeps nothing', async () => {
    const dry = await patch('default', MERGE, { metadata: { labels: { a: 'b' } } }, '?dryRun=All');
    expect([dry.statusCode, dry.json().metadata.labels.a]).toEqual([200, 'b']);
    expect((await get('default')).metadata.labels).not.toHaveProperty('a');
    expect((await patch('default', MERGE, { metadata: { labels: { a: 'b' } } })).statusCode).toBe(200);
    expect((await get('default')).metadata.labels.a).toBe('b');
  });

  it('PUT replaces labels and annotations, keeps spec and status, and checks the resourceVersion', async () => {
    const old = await get('team-a');
    const next = {
      ...old,
      metadata: { ...old.metadata, labels: { x: 'y' } },
      status: { phase: 'Terminating' },
    };
    const put = await app.inject({ method: 'PUT', url: '/api/v1/namespaces/team-a', payload: next });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ metadata: { labels: { x: 'y' } }, status: { phase: 'Active' } });
    // versions come from the node's trace, which a running node moves every relist
    trace.record({ type: 'pleg.relist', durationMs: 1, pods: 0, containers: 0, events: 0 });
    const again = await app.inject({ method: 'PUT', url: '/api/v1/namespaces/team-a', payload: put.json() });
    expect(again.statusCode).toBe(200);
    expect(Number(again.json().metadata.resourceVersion)).toBeGreaterThan(
      Number(put.json().metadata.resourceVersion),
    );
    const stale = await app.inject({ method: 'PUT', url: '/api/v1/namespaces/team-a', payload: next });
    expect([stale.statusCode, stale.json().message]).toEqual([
      409,
      'Operation cannot be fulfilled on namespaces "team-a": the object has been modified; please apply your changes to the latest version and try again',
    ]);
  });

  it('refuses what the apiserver refuses, and changes nothing', async () => {
    const before = await get('team-a');
    const badKey = await patch('team-a', MERGE, { metadata: { labels: { 'bad key!': 'v' } } });
    expect(badKey.statusCode).toBe(422);
    expect(badKey.json().details.causes[0]).toMatchObject({
      field: 'metadata.labels',
      reason: 'FieldValueInvalid',
    });
    expect(badKey.json().message).toMatch(
      /^Namespace "team-a" is invalid: metadata\.labels: Invalid value: "bad key!"/,
    );
    const badValue = await patch('team-a', MERGE, { metadata: { labels: { ok: 'no spaces' } } });
    expect(badValue.statusCode).toBe(422);
    const notStrings = await patch('team-a', MERGE, { metadata: { annotations: { n: 1 } } });
    expect([notStrings.statusCode, notStrings.json().message]).toEqual([
      400,
      'Namespace in version "v1" cannot be handled as a Namespace: metadata.annotations: expected map of strings',
    ]);
    const renamed = await patch('team-a', MERGE, { metadata: { name: 'team-b' } });
    expect([renamed.statusCode, renamed.json().message]).toEqual([
      400,
      'the name of the object (team-b) does not match the name on the URL (team-a)',
    ]);
    expect((await patch('team-a', MERGE, '{')).statusCode).toBe(400);
    expect((await patch('team-a', 'application/apply-patch+yaml', '{}')).statusCode).toBe(415);
    const huge = { metadata: { annotations: { big: 'x'.repeat(300 * 1024) } } };
    expect((await patch('team-a', MERGE, huge)).json()).toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await patch('nope', MERGE, { metadata: {} })).statusCode).toBe(404);
    expect(await get('team-a')).toEqual(before);
  });
});

describe('namespace create keeps annotations, as kubectl apply writes its last-applied one', () => {
  it('answers and keeps them', async () => {
    const applied = { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Namespace"}' };
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/namespaces',
      payload: { metadata: { name: 'team-c', annotations: applied } },
    });
    expect([created.statusCode, created.json().metadata.annotations]).toEqual([201, applied]);
    expect((await get('team-c')).metadata.annotations).toEqual(applied);
  });
});
