/**
 * Every way a request can be wrong gets a 4xx v1 Status that names the field and the reason, in the API
 * server's words where it has them, and changes nothing.
 */
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createHttpApp } from './http.ts';
import { FakeEngine } from './testing.ts';

let app: FastifyInstance;
let engine: FakeEngine;

// one app for the file: every test starts from an engine without pods or deletes
beforeAll(async () => {
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock });
});
beforeEach(() => {
  engine.pods.clear();
  engine.deletes.length = 0;
});
afterAll(() => app.close());

type Obj = Record<string, unknown>;
const pod = (container: Obj = {}, spec: Obj = {}, metadata: Obj = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', ...metadata },
  spec: { containers: [{ name: 'app', image: 'busybox:1.36', ...container }], ...spec },
});

async function create(body: unknown, contentType = 'application/yaml', ns = 'default') {
  return app.inject({
    method: 'POST',
    url: `/api/v1/namespaces/${ns}/pods`,
    headers: { 'content-type': contentType },
    payload: typeof body === 'string' ? body : stringify(body),
  });
}

/** Posts the manifest and returns its causes as `field: message`, checking nothing was created. */
async function causesOf(body: unknown, ns = 'default'): Promise<string[]> {
  const res = await create(body, 'application/yaml', ns);
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', code: 422 });
  expect(engine.getPods()).toEqual([]);
  return (res.json().details?.causes ?? []).map((c: Obj) => `${c.field}: ${c.message}`);
}

describe('manifest validation', () => {
  it('checks port ranges, names and uniqueness with the API server wording', async () => {
    const causes = await causesOf(
      pod({
        ports: [
          { containerPort: 70000 },
          { name: 'http', containerPort: 80 },
          { name: 'http', containerPort: 81 },
          { name: 'Web--Port_name', containerPort: 82, hostPort: -1 },
        ],
      }),
    );
    expect(causes).toEqual([
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[2].name: Duplicate value: "http"',
      'spec.containers[0].ports[3].name: Invalid value: "Web--Port_name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'spec.containers[0].ports[3].name: Invalid value: "Web--Port_name": must not contain consecutive hyphens',
      'spec.containers[0].ports[3].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive',
    ]);
  });

  it('wants exactly one probe handler and the API server number rules', async () => {
    const causes = await causesOf(
      pod({
        livenessProbe: { exec: { command: ['true'] }, httpGet: { port: 8080 }, successThreshold: 2 },
        startupProbe: { tcpSocket: { port: 0 }, periodSeconds: -1, initialDelaySeconds: -5 },
        readinessProbe: { periodSeconds: 0 },
      }),
    );
    expect(causes).toEqual([
      'spec.containers[0].livenessProbe.httpGet: Forbidden: may not specify more than 1 handler type',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
      'spec.containers[0].readinessProbe: Required value: must specify a handler type',
      'spec.containers[0].startupProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.containers[0].startupProbe.initialDelaySeconds: Invalid value: -5: must be greater than or equal to 0',
      'spec.containers[0].startupProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('accepts the zeros that defaulting fills (periodSeconds 0 → 10, successThreshold 0 → 1)', async () => {
    const res = await create(
      pod({ livenessProbe: { exec: { command: ['true'] }, periodSeconds: 0, successThreshold: 0 } }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().spec.containers[0].livenessProbe).toMatchObject({
      periodSeconds: 10,
      successThreshold: 1,
    });
  });

  it('parses resource quantities and wants every request within its limit', async () => {
    const ok = await create(
      pod({ resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1, memory: '1Gi' } } }),
    );
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().spec.containers[0].resources.limits).toEqual({ cpu: '1', memory: '1Gi' });
    engine.pods.clear();
    const causes = await causesOf(
      pod({ resources: { requests: { cpu: '2', memory: '-1', gpu: '1' }, limits: { cpu: '1500m' } } }),
    );
    expect(causes).toEqual([
      'spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      'spec.containers[0].resources.requests[cpu]: Invalid value: "2": must be less than or equal to cpu limit of 1500m',
    ]);
  });

  it('refuses a quantity that does not parse at decoding, naming the field', async () => {
    const res = await create(pod({ resources: { limits: { memory: '1.5.5Gi' } } }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
    expect(res.json().details.causes[0].field).toBe('spec.containers[0].resources.limits.memory');
  });

  it('checks env names, restart policy, grace periods, labels and the namespace', async () => {
    const causes = await causesOf(
      pod(
        { env: [{ name: 'A=B', value: 'x' }, { value: 'y' }] },
        { restartPolicy: 'Sometimes', terminationGracePeriodSeconds: -1 },
        { labels: { 'bad key!': 'ok', app: 'not ok!' } },
      ),
    );
    // a namespace that is no name is one that does not exist: refused before the pod is validated
    expect((await create(pod(), 'application/yaml', 'Bad_NS')).json()).toMatchObject({
      code: 404,
      message: 'namespaces "Bad_NS" not found',
    });
    expect(causes).toEqual([
      expect.stringMatching(/^metadata\.labels: Invalid value: "bad key!": name part must consist of/),
      expect.stringMatching(
        /^metadata\.labels: Invalid value: "not ok!": a valid label must be an empty string/,
      ),
      'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
      'spec.containers[0].env[1].name: Required value',
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      'spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('refuses numbers out of their Go type and the prototype-named fields', async () => {
    const res = await create(
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","constructor":1,"__proto__":{"x":1}},' +
        '"spec":{"containers":[{"name":"app","image":"b","ports":[{"containerPort":1e300}]}]}}',
      'application/json',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().details.causes.map((c: Obj) => c.field)).toEqual([
      'metadata.constructor',
      'metadata.__proto__',
      'spec.containers[0].ports[0].containerPort',
    ]);
    expect(res.json().message).toContain('of type int32');
  });

  it('refuses __proto__ as a label or annotation key, in JSON and in YAML, with the API server reason', async () => {
    const nameMsg =
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const json =
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"__proto__":"x"},' +
      '"annotations":{"__proto__":"{}"}},"spec":{"containers":[{"name":"app","image":"busybox:1.36"}]}}';
    const yaml =
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    __proto__: x\n' +
      '  annotations:\n    __proto__: "{}"\nspec:\n  containers:\n  - name: app\n    image: busybox:1.36\n';
    for (const [body, type] of [
      [json, 'application/json'],
      [yaml, 'application/yaml'],
    ] as const) {
      const res = await create(body, type);
      expect(res.statusCode, type).toBe(422);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
      expect(res.json().details.causes, type).toEqual([
        {
          field: 'metadata.labels',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "__proto__": ${nameMsg}`,
        },
        {
          field: 'metadata.annotations',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "__proto__": ${nameMsg}`,
        },
      ]);
    }
    expect(engine.getPods()).toEqual([]);
  });

  it('refuses a name that is not DNS-1123, and deep nesting before it can hurt', async () => {
    const causes = await causesOf(pod({}, {}, { name: 'Web_1' }));
    expect(causes[0]).toMatch(/^metadata\.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain/);
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const res = await create(deep, 'application/json');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/nested deeper than 100 levels/);
  });
});

describe('request shape', () => {
  it('answers an unknown media type with 415 and a wrong method with 405 and Allow', async () => {
    const res = await create(pod(), 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ kind: 'Status', code: 415, reason: 'UnsupportedMediaType' });
    const post = await app.inject({ method: 'POST', url: '/api/v1/namespaces/default/pods/web' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('DELETE, GET, HEAD, PATCH, PUT');
    expect(post.json()).toMatchObject({ kind: 'Status', code: 405, reason: 'MethodNotAllowed' });
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/pods' })).statusCode).toBe(405);
    expect(engine.getPods()).toEqual([]);
  });

  it('refuses bad and repeated query parameters everywhere, naming them', async () => {
    await create(pod());
    const cases: [string, string, string][] = [
      ['GET', '/api/v1/trace?since=-1', 'since'],
      ['GET', '/api/v1/trace?limit=abc', 'limit'],
      ['GET', '/api/v1/trace?podUID=a&podUID=b', 'podUID'],
      ['GET', '/api/v1/trace/export?podUID=a&podUID=b', 'podUID'],
      ['GET', '/api/v1/pods?namespace=Bad_NS', 'namespace'],
      ['GET', '/api/v1/namespaces/default/pods/web/log?previous=maybe', 'previous'],
      ['GET', '/api/v1/namespaces/default/pods/web/log?tailLines=-3', 'tailLines'],
      ['GET', '/api/v1/namespaces/default/pods/web/log?timestamps=2', 'timestamps'],
      ['DELETE', '/api/v1/namespaces/default/pods/web?gracePeriodSeconds=99999999999', 'gracePeriodSeconds'],
      [
        'DELETE',
        '/api/v1/namespaces/default/pods/web?gracePeriodSeconds=1&gracePeriodSeconds=2',
        'gracePeriodSeconds',
      ],
    ];
    for (const [method, url, field] of cases) {
      const res = await app.inject({ method: method as 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details.causes[0].field, url).toBe(field);
    }
    expect(engine.deletes).toEqual([]);
  });

  it('404s the unknown pod for every verb', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/namespaces/default/pods/nope'],
      ['DELETE', '/api/v1/namespaces/default/pods/nope'],
      ['GET', '/api/v1/namespaces/default/pods/nope/log'],
    ]) {
      const res = await app.inject({ method: method as 'GET', url: url as string });
      expect(res.json()).toMatchObject({ code: 404, reason: 'NotFound', message: 'pods "nope" not found' });
    }
  });

  it('answers a plain GET of the WebSocket endpoint with a Status', async () => {
    const res = await app.inject('/api/v1/trace/stream');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/WebSocket/);
  });
});
