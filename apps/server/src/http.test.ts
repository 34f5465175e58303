import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from './http.ts';
import { FakeEngine } from './testing.ts';

const HEALTHY = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: app
      image: busybox
      command: ["sh", "-c", "sleep 3600"]
`;

let app: FastifyInstance;
let engine: FakeEngine;
let trace: TraceRecorder;
let clock: FakeClock;

beforeEach(async () => {
  clock = new FakeClock();
  engine = new FakeEngine(clock);
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine, trace, clock });
});
afterEach(() => app.close());

const post = async (body: string, contentType = 'application/yaml', ns = 'default') => {
  if (ns !== 'default')
    await app.inject({ method: 'POST', url: '/api/v1/namespaces', payload: { metadata: { name: ns } } });
  return app.inject({
    method: 'POST',
    url: `/api/v1/namespaces/${ns}/pods`,
    headers: { 'content-type': contentType },
    payload: body,
  });
};

describe('POST /api/v1/namespaces/:ns/pods', () => {
  it('creates a defaulted pod from YAML with uid, namespace and creationTimestamp', async () => {
    const res = await post(HEALTHY);
    expect(res.statusCode).toBe(201);
    const pod = res.json();
    expect(pod.metadata).toMatchObject({
      name: 'web',
      namespace: 'default',
      creationTimestamp: '2026-01-01T12:00:00Z',
    });
    expect(pod.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
    });
    expect(pod.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(engine.getPods().map((p) => p.metadata.name)).toEqual(['web']);
  });

  it('accepts JSON and text/plain YAML alike', async () => {
    const json = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'j' },
      spec: { containers: [{ name: 'a', image: 'busybox:1.36' }] },
    };
    expect((await post(JSON.stringify(json), 'application/json')).statusCode).toBe(201);
    expect((await post(HEALTHY.replace('web', 'y'), 'text/plain')).statusCode).toBe(201);
    expect(engine.getPod('default', 'j')?.spec.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
  });

  it('answers a missing image with 422 Invalid naming the field', async () => {
    const res = await post(HEALTHY.replace('      image: busybox\n', ''));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Pod "web" is invalid: spec.containers[0].image: Required value',
      details: {
        name: 'web',
        kind: 'Pod',
        causes: [
          { field: 'spec.containers[0].image', reason: 'FieldValueRequired', message: 'Required value' },
        ],
      },
    });
    expect(engine.getPods()).toEqual([]);
  });

  it('lists every invalid field at once', async () => {
    const bad = `apiVersion: v1
kind: Pod
metadata: {name: Bad_Name}
spec:
  restartPolicy: Sometimes
  terminationGracePeriodSeconds: -1
  containers:
    - {name: a, image: busybox, ports: [{containerPort: 70000}]}
    - {name: a, image: busybox, livenessProbe: {exec: {command: ["true"]}, periodSeconds: -5}}
`;
    const res = await post(bad);
    expect(res.statusCode).toBe(422);
    const causes = res
      .json()
      .details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`);
    expect(causes).toEqual([
      'metadata.name FieldValueInvalid',
      'spec.containers[0].ports[0].containerPort FieldValueInvalid',
      'spec.containers[1].livenessProbe.periodSeconds FieldValueInvalid',
      'spec.containers[1].name FieldValueDuplicate',
      'spec.restartPolicy FieldValueNotSupported',
      'spec.terminationGracePeriodSeconds FieldValueInvalid',
    ]);
    expect(res.json().message).toMatch(
      /^Pod "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": /,
    );
  });

  it('rejects an unknown field as strict decoding does', async () => {
    const res = await post(HEALTHY.replace('spec:\n', 'spec:\n  foo: 1\n'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.foo"',
      details: { causes: [{ field: 'spec.foo' }] },
    });
  });

  it('rejects a namespace that differs from the URL', async () => {
    const res = await post(HEALTHY.replace('  name: web\n', '  name: web\n  namespace: other\n'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
    expect(res.json().details.causes[0].field).toBe('metadata.namespace');
  });

  it('answers a duplicate name with 409 AlreadyExists and keeps the first pod', async () => {
    const first = (await post(HEALTHY)).json();
    const res = await post(HEALTHY);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      reason: 'AlreadyExists',
      message: 'pods "web" already exists',
      code: 409,
    });
    expect(engine.getPods().map((p) => p.metadata.uid)).toEqual([first.metadata.uid]);
    // the same name in another namespace is another pod
    expect((await post(HEALTHY, 'application/yaml', 'team-a')).statusCode).toBe(201);
  });

  it('refuses a YAML alias bomb with 400', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const res = await post(lines.join('\n'));
    expect(res.statusCode).toBe(400);
    expect(res.json().reason).toBe('BadRequest');
    expect(res.json().message).toMatch(/alias/i);
  });

  it('refuses malformed JSON and an empty body with 400', async () => {
    expect((await post('{"apiVersion":', 'application/json')).json()).toMatchObject({
      code: 400,
      reason: 'BadRequest',
    });
    expect((await post('', 'application/yaml')).statusCode).toBe(400);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await post(`# ${'x'.repeat(1024 * 1024)}\n${HEALTHY}`);
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ kind: 'Status', code: 413, reason: 'RequestEntityTooLarge' });
  });
});

describe('GET and DELETE a pod', () => {
  it('404s an unknown pod with a Status', async () => {
    const res = await app.inject('/api/v1/namespaces/default/pods/nope');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      message: 'pods "nope" not found',
      code: 404,
    });
    const del = await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/default/pods/nope' });
    expect(del.statusCode).toBe(404);
  });

  it('lists pods across namespaces, by namespace, and by ?namespace=', async () => {
    await post(HEALTHY);
    await post(HEALTHY, 'application/yaml', 'team-a');
    const all = (await app.inject('/api/v1/pods')).json();
    expect(all).toMatchObject({ apiVersion: 'v1', kind: 'PodList' });
    expect(all.items).toHaveLength(2);
    expect((await app.inject('/api/v1/pods?namespace=team-a')).json().items).toHaveLength(1);
    expect((await app.inject('/api/v1/namespaces/team-a/pods')).json().items[0].metadata.namespace).toBe(
      'team-a',
    );
    expect((await app.inject('/api/v1/namespaces/default/pods/web')).json().metadata.name).toBe('web');
  });

  it('deletes gracefully with the given grace period and answers with the terminating pod', async () => {
    const uid = (await post(HEALTHY)).json().metadata.uid;
    const res = await app.inject({
      method: 'DELETE',
      url: '/api/v1/namespaces/default/pods/web?gracePeriodSeconds=5',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().metadata).toMatchObject({
      uid,
      deletionTimestamp: '2026-01-01T12:00:05Z',
      deletionGracePeriodSeconds: 5,
    });
    expect(engine.deletes).toEqual([{ uid, gracePeriodSeconds: 5 }]);
  });

  it('refuses a negative or non-numeric gracePeriodSeconds and deletes nothing', async () => {
    await post(HEALTHY);
    for (const q of ['-1', 'abc', '1.5']) {
      const res = await app.inject({
        method: 'DELETE',
        url: `/api/v1/namespaces/default/pods/web?gracePeriodSeconds=${q}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.causes[0].field).toBe('gracePeriodSeconds');
    }
    expect(engine.deletes).toEqual([]);
  });
});

describe('trace over HTTP', () => {
  beforeEach(() => {
    for (let i = 0; i < 5; i++)
      trace.record({
        type: 'config.update',
        op: 'ADD',
        source: 'api',
        podUID: `u${i % 2}`,
        pod: 'default/x',
      });
  });

  it('pages with since and limit, and filters by pod', async () => {
    const page = (await app.inject('/api/v1/trace?since=1&limit=2')).json();
    expect(page.items.map((e: { seq: number }) => e.seq)).toEqual([2, 3]);
    expect(page).toMatchObject({ next: 3, oldest: 1 });
    const rest = (await app.inject(`/api/v1/trace?since=${page.next}`)).json();
    expect(rest.items.map((e: { seq: number }) => e.seq)).toEqual([4, 5]);
    expect(rest.next).toBe(5);
    const pod = (await app.inject('/api/v1/trace?podUID=u1')).json();
    expect(pod.items.map((e: { seq: number }) => e.seq)).toEqual([2, 4]);
  });

  it('answers ?since=abc and ?limit=0 with 400', async () => {
    const res = await app.inject('/api/v1/trace?since=abc');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      details: { causes: [{ field: 'since' }] },
    });
    expect((await app.inject('/api/v1/trace?limit=0')).statusCode).toBe(400);
  });

  it('exports NDJSON, one event per line', async () => {
    const res = await app.inject('/api/v1/trace/export?podUID=u0');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => e.seq)).toEqual([1, 3, 5]);
  });
});

describe('node, health, errors', () => {
  it('serves node info, healthz and a Status for unknown API paths', async () => {
    expect((await app.inject('/api/v1/node')).json().nodeName).toBe('fake');
    expect((await app.inject('/healthz')).body).toBe('ok');
    const res = await app.inject('/api/v1/nothing');
    expect(res.statusCode).toBe(404);
    expect(res.json().kind).toBe('Status');
  });

  it('says how to build the web app when it is not built', async () => {
    const res = await app.inject({ url: '/pods/default/web', headers: { accept: 'text/html,*/*' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('pnpm build');
  });

  it('answers the page only to a browser navigation, never on a spelling of an API path', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    expect((await app.inject({ url: '/some/page', headers: html })).statusCode).toBe(200);
    for (const url of ['/some/page', '/API/v1/pods', '//api/v1/pods', '/Apis', '/OPENAPI/v2', '/version/x']) {
      for (const headers of [{ accept: 'application/json' }, { accept: '*/*' }, html]) {
        if (url === '/some/page' && headers === html) continue;
        const res = await app.inject({ url, headers });
        expect([url, headers.accept, res.statusCode, res.json().kind]).toEqual([
          url,
          headers.accept,
          404,
          'Status',
        ]);
      }
    }
  });

  it('requires the bearer token for writes and reads when one is set', async () => {
    const guarded = await createHttpApp({ engine, trace, clock, token: 's3cret' });
    const url = '/api/v1/namespaces/default/pods';
    const headers = { 'content-type': 'application/yaml' };
    const denied = await guarded.inject({ method: 'POST', url, headers, payload: HEALTHY });
    expect(denied.statusCode).toBe(401);
    expect(denied.json().reason).toBe('Unauthorized');
    const ok = await guarded.inject({
      method: 'POST',
      url,
      headers: { ...headers, authorization: 'Bearer s3cret' },
      payload: HEALTHY,
    });
    expect(ok.statusCode).toBe(201);
    expect((await guarded.inject('/api/v1/pods')).statusCode).toBe(401);
    const read = await guarded.inject({ url: '/api/v1/pods', headers: { authorization: 'Bearer s3cret' } });
    expect(read.statusCode).toBe(200);
    await guarded.close();
  });
});
