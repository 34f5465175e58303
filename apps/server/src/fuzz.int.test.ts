/**
 * Property-based fuzzing of the HTTP surface against the FakeEngine: thousands of mutated manifests (from the
 * examples and a pod that uses every validated field) and mutated requests. For every one: no crash, no
 * 5xx, an error is a v1 Status whose code is the HTTP status, and a refused request leaves the engine's
 * pods exactly as they were. Bounded by run count and a time limit so the file stays under 20 s.
 */
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadExamples } from './examples.ts';
import { createHttpApp } from './http.ts';
import { FakeEngine } from './testing.ts';

const TOKEN = 'fuzz-token';
/**
 * Runs per property, from a seed (FUZZ_SEED, else a fixed one): how many inputs are tried, and so how often each
 * outcome is reached, does not depend on how busy the machine is. A failure prints its seed and path to replay.
 */
const RUNS = { numRuns: 800, seed: Number(process.env.FUZZ_SEED ?? 20261127) };

/** A valid pod that reaches every rule of validatePod. */
const RICH = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'rich', labels: { app: 'rich', 'example.com/tier': 'web' }, annotations: { note: 'x' } },
  spec: {
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 5,
    activeDeadlineSeconds: 600,
    initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['true'] }],
    containers: [
      {
        name: 'app',
        image: 'busybox:1.36',
        env: [{ name: 'MODE', value: 'fast' }],
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1, memory: '1Gi' } },
        livenessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5, successThreshold: 1 },
        readinessProbe: { tcpSocket: { port: 8080 }, successThreshold: 3 },
        startupProbe: { exec: { command: ['true'] }, failureThreshold: 30 },
        lifecycle: { preStop: { sleep: { seconds: 1 } } },
      },
    ],
  },
};

let clock: FakeClock;
let engine: FakeEngine;
let open: FastifyInstance;
let guarded: FastifyInstance;
let bases: unknown[];
let seedUID: string;
let seed: string;

beforeAll(async () => {
  clock = new FakeClock();
  engine = new FakeEngine(clock);
  const trace = new TraceRecorder(clock, 1000);
  for (let i = 0; i < 20; i++)
    trace.record({ type: 'config.update', op: 'ADD', source: 'api', podUID: 'u', pod: 'default/x' });
  open = await createHttpApp({ engine, trace, clock });
  guarded = await createHttpApp({ engine, trace, clock, token: TOKEN });
  bases = [RICH, ...(await loadExamples()).map((e) => parse(e.yaml) as unknown)];
  const res = await open.inject({
    method: 'POST',
    url: '/api/v1/namespaces/default/pods',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ ...RICH, metadata: { name: 'seed' } }),
  });
  expect(res.statusCode).toBe(201);
  seedUID = res.json().metadata.uid;
  seed = JSON.stringify(engine.getPodByUID(seedUID));
});
afterAll(async () => {
  await open.close();
  await guarded.close();
});

/** Puts the engine back to just the seed pod, and returns the snapshot to compare with. */
function reset(): string {
  engine.pods.clear();
  engine.pods.set(seedUID, JSON.parse(seed));
  engine.deletes.length = 0;
  return snapshot();
}
const snapshot = () => JSON.stringify({ pods: engine.getPods(), deletes: engine.deletes });

/** The response invariants; returns whether the request was refused. */
function checkResponse(res: LightMyRequestResponse, what: string): boolean {
  expect(res.statusCode, what).toBeLessThan(500);
  if (res.statusCode < 400) return false;
  const body = res.json();
  expect(body, what).toMatchObject({
    apiVersion: 'v1',
    kind: 'Status',
    status: 'Failure',
    code: res.statusCode,
  });
  expect(typeof body.reason, what).toBe('string');
  expect(typeof body.message, what).toBe('string');
  return true;
}

// --- values and mutations ---

function nest(depth: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

const numbers = fc.oneof(
  fc.constantFrom(
    -1,
    0,
    1,
    65535,
    65536,
    70000,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53,
    1e300,
    -1e300,
    0.5,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const strings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 250, maxLength: 400 }),
  fc.constantFrom('100m', '64Mi', '1Gi', '-1', '1.5.5', '1e400', 'Infinity', '0x10', '', ' ', 'Bad_Name'),
  fc.constantFrom('a'.repeat(64), '-x', 'x-', 'web', 'http', 'a=b', 'seed', 'Always', 'HTTP', '../../etc'),
  fc.constantFrom('__proto__', 'constructor', 'toString', '\u0000', '\u202e', '💥'.repeat(100)),
);
const values: fc.Arbitrary<unknown> = fc.oneof(
  numbers,
  strings,
  fc.boolean(),
  fc.constantFrom(null, [], {}),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 50, max: 400 }).map((n) => nest(n)),
);
const keys = fc.oneof(
  fc.constantFrom('foo', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'),
  fc.constantFrom('name', 'image', 'ports', 'livenessProbe', 'exec', 'grpc', 'httpGet', 'sleep'),
  fc.constantFrom('limits', 'requests', 'cpu', 'memory', 'gpu', 'example.com/x', 'env', 'valueFrom'),
  fc.string({ maxLength: 12 }),
);

type Mutation = { op: 'delete' | 'set' | 'insert' | 'root'; at: number; key: string; value: unknown };
const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('delete', 'set', 'set', 'insert', 'root'),
  at: fc.nat(),
  key: keys,
  value: values,
});

/** Every place in a value: [parent, key] pairs of its members, containers first. */
function places(v: unknown): [Record<string, unknown>, string][] {
  const out: [Record<string, unknown>, string][] = [];
  const stack = [v];
  while (stack.length > 0) {
    const cur = stack.pop();
    if (typeof cur !== 'object' || cur === null) continue;
    for (const k of Object.keys(cur)) {
      out.push([cur as Record<string, unknown>, k]);
      stack.push((cur as Record<string, unknown>)[k]);
    }
  }
  return out;
}

function mutate(base: unknown, muts: Mutation[]): unknown {
  let doc = structuredClone(base);
  for (const m of muts) {
    // values are cloned wherever they go: fast-check hands out the same constant object ({}, []) to many
    // mutations, and one put inside itself made a cycle that places() walked until the heap ran out
    if (m.op === 'root') {
      doc = structuredClone(m.value);
      continue;
    }
    const all = places(doc);
    const place = all[m.at % Math.max(1, all.length)];
    if (!place) continue;
    const [parent, key] = place;
    if (m.op === 'delete') {
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
    } else if (m.op === 'set') parent[key] = structuredClone(m.value);
    else {
      const target = parent[key];
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) {
        // an own property even for `__proto__`, as JSON.parse would make it
        Object.defineProperty(target, m.key, {
          value: structuredClone(m.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else if (Array.isArray(target)) target.push(structuredClone(m.value));
    }
  }
  return doc;
}

const BOMB = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
  .concat(
    Array.from({ length: 9 }, (_, i) => {
      const prev = String.fromCharCode(97 + i);
      const cur = String.fromCharCode(98 + i);
      return `${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`;
    }),
  )
  .join('\n');

/** Text-level damage to a YAML manifest. */
const textEdit = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string(),
      fc.constantFrom(
        '\t',
        ': :',
        '&a ',
        '*a',
        '*undefined',
        '- ',
        '{',
        ']',
        '!!binary ',
        '---\n',
        '<<: *a\n',
        '\n  x: 1\n',
        `\n${BOMB}\n`,
      ),
    ),
  }),
  fc.record({ kind: fc.constant('bomb' as const), at: fc.nat() }),
);
type TextEdit =
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'bomb'; at: number };

function editText(text: string, e: TextEdit): string {
  const at = e.at % (text.length + 1);
  if (e.kind === 'truncate') return text.slice(0, at);
  if (e.kind === 'bomb') return `${BOMB}\n${text}`;
  return text.slice(0, at) + e.text + text.slice(at);
}

const encodings = fc.constantFrom('json', 'yaml', 'yaml-edited', 'json-as-yaml');

describe('fuzzed manifests', () => {
  it('never crash the server nor change the engine when refused', async () => {
    let refused = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        encodings,
        textEdit,
        fc.constantFrom('default', 'team-a', 'Bad_NS', 'x'.repeat(64)),
        async (which, muts, encoding, edit, ns) => {
          const before = reset();
          const doc = mutate(bases[which % bases.length], muts);
          let payload: string;
          let contentType = 'application/yaml';
          if (encoding === 'json') {
            payload = JSON.stringify(doc) ?? 'undefined';
            contentType = 'application/json';
          } else {
            payload =
              encoding === 'json-as-yaml'
                ? (JSON.stringify(doc) ?? '')
                : stringify(doc, { aliasDuplicateObjects: false });
            if (encoding === 'yaml-edited') payload = editText(payload, edit);
          }
          const res = await open.inject({
            method: 'POST',
            url: `/api/v1/namespaces/${ns}/pods`,
            headers: { 'content-type': contentType },
            payload,
          });
          const what = `${res.statusCode} ${res.body.slice(0, 300)}\n--- sent (${encoding}) ---\n${payload.slice(0, 600)}`;
          if (checkResponse(res, what)) {
            refused++;
            expect(snapshot(), what).toBe(before);
          } else {
            accepted++;
            expect(res.statusCode, what).toBe(201);
            expect(engine.getPods(), what).toHaveLength(2);
          }
        },
      ),
      RUNS,
    );
    // the mutations reach both outcomes, or the property says little
    expect(refused).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(10);
  }, 120_000);
});

// --- requests ---

const segment = fc.oneof(
  fc.constantFrom('seed', 'nope', 'default', 'Bad_NS', '..', '%2e%2e', '%2F', 'app', 'log', ''),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const paths = fc.oneof(
  fc.constantFrom(
    '/api/v1/pods',
    '/api/v1/events',
    '/api/v1/node',
    '/api/v1/examples',
    '/api/v1/trace',
    '/api/v1/trace/export',
    '/api/v1/trace/stream',
    '/api/v1/sim',
    '/api/v1/sim/faults',
    '/api/v1/sim/speed',
    '/metrics',
    '/healthz',
    '/api',
    '/',
  ),
  fc.tuple(segment, segment).map(([ns, name]) => `/api/v1/namespaces/${ns}/pods/${name}`),
  fc.tuple(segment, segment).map(([ns, name]) => `/api/v1/namespaces/${ns}/pods/${name}/log`),
  segment.map((ns) => `/api/v1/namespaces/${ns}/pods`),
  fc.array(segment, { maxLength: 6 }).map((s) => `/${s.join('/')}`),
);
const paramNames = fc.constantFrom(
  'since',
  'limit',
  'podUID',
  'gracePeriodSeconds',
  'previous',
  'tailLines',
  'timestamps',
  'container',
  'namespace',
  'token',
  'x',
);
const paramValues = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '1.5',
    'abc',
    '',
    'true',
    'false',
    '99999999999999999999',
    '9007199254740993',
    'app',
    'seed',
  ),
  fc.integer().map(String),
  fc.string({ maxLength: 30 }),
);
const query = fc
  .array(fc.tuple(paramNames, paramValues), { maxLength: 4 })
  .map((ps) => (ps.length ? `?${ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));
const headerSets = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/yaml',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      'application/json; charset=utf-8',
      'garbage',
    ),
    origin: fc.constantFrom('http://localhost:80', 'http://evil.example', 'null', '::'),
    authorization: fc.constantFrom(`Bearer ${TOKEN}`, 'Bearer wrong', 'Basic x', 'Bearer '),
    host: fc.constantFrom('localhost:80', '127.0.0.1:80', 'evil.example', '[::1]:80'),
    'sec-websocket-protocol': fc.constantFrom(
      `base64url.bearer.authorization.k8s.io.${Buffer.from(TOKEN).toString('base64url')}`,
      'x, y',
    ),
  },
  { requiredKeys: [] },
);
const bodies = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    JSON.stringify({ ...RICH, metadata: { name: 'fresh' } }),
    '{"kind":"exit","container":"app"}',
    '{"speed": 5}',
    BOMB,
  ),
);

describe('fuzzed requests', () => {
  it('always answer below 500, errors as Status, and refusals change nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
        paths,
        query,
        headerSets,
        bodies,
        fc.boolean(),
        async (method, path, qs, headers, payload, withToken) => {
          const before = reset();
          const app = withToken ? guarded : open;
          const res = await app.inject({
            method: method as 'GET',
            url: path + qs,
            headers,
            ...(payload !== undefined && method !== 'GET' && method !== 'HEAD' ? { payload } : {}),
          });
          const what = `${method} ${path + qs} ${JSON.stringify(headers)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
          if (method === 'HEAD') {
            expect(res.statusCode, what).toBeLessThan(500);
            return;
          }
          if (checkResponse(res, what)) expect(snapshot(), what).toBe(before);
        },
      ),
      RUNS,
    );
  }, 120_000);
});
