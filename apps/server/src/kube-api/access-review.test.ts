import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';
import { PROTOBUF_MEDIA_TYPE } from './kube-protobuf.ts';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
let app: FastifyInstance;
let engine: FakeEngine;
let observing: string | undefined;

beforeEach(async () => {
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  observing = undefined;
  const info = engine.nodeInfo.bind(engine);
  Object.assign(engine, { nodeInfo: () => ({ ...info(), ...(observing ? { observing } : {}) }) });
  app = await createHttpApp({ engine, trace: new TraceRecorder(clock, 100), clock });
});
afterEach(() => app.close());

const review = (spec: unknown) =>
  app.inject({
    method: 'POST',
    url: SSAR,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', spec }),
  });

/** Protobuf as the generated messages lay it out: a length-delimited field (wire type 2). */
function field(n: number, body: Buffer | string): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
}

describe('SelfSubjectAccessReview', () => {
  it('is discovered under authorization.k8s.io/v1', async () => {
    const groups = (await app.inject('/apis')).json().groups;
    expect(groups).toEqual([
      {
        name: 'authorization.k8s.io',
        versions: [{ groupVersion: 'authorization.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'authorization.k8s.io/v1', version: 'v1' },
      },
    ]);
    const list = (await app.inject('/apis/authorization.k8s.io/v1')).json();
    expect(list.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs])).toEqual([
      ['selfsubjectaccessreviews', ['create']],
      ['selfsubjectrulesreviews', ['create']],
    ]);
  });

  it('allows everything to the holder of the token, and only the reads in observe mode', async () => {
    const create = { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } };
    const res = await review(create);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      kind: 'SelfSubjectAccessReview',
      spec: create,
      status: { allowed: true },
    });
    observing = 'unix:///run/containerd/containerd.sock';
    expect((await review(create)).json().status).toEqual({
      allowed: false,
      denied: true,
      reason: 'observe mode: this server does not change the node',
    });
    const watch = { resourceAttributes: { verb: 'watch', resource: 'pods' } };
    expect((await review(watch)).json().status).toEqual({ allowed: true });
    expect(
      (await review({ nonResourceAttributes: { verb: 'get', path: '/healthz' } })).json().status,
    ).toEqual({
      allowed: true,
    });
    expect(engine.pods.size).toBe(0);
  });

  it('wants exactly one kind of attributes, as the apiserver validates it', async () => {
    const none = await review({});
    expect(none.statusCode).toBe(422);
    expect(none.json().message).toBe(
      'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
    );
    const both = await review({
      resourceAttributes: { verb: 'get' },
      nonResourceAttributes: { verb: 'get' },
    });
    expect(both.json().message).toMatch(
      /spec\.nonResourceAttributes: Invalid value: .*: cannot be specified in combination with resourceAttributes$/,
    );
    const wrong = await app.inject({
      method: 'POST',
      url: SSAR,
      headers: { 'content-type': 'application/json' },
      payload: '{"kind":"Pod"}',
    });
    expect([wrong.statusCode, wrong.json().reason]).toEqual([400, 'BadRequest']);
  });

  it('reads the protobuf body of a typed client', async () => {
    const attrs = Buffer.concat([field(1, 'default'), field(2, 'delete'), field(5, 'pods')]);
    const object = Buffer.concat([field(1, Buffer.alloc(0)), field(2, field(1, attrs))]);
    const typeMeta = Buffer.concat([
      field(1, 'authorization.k8s.io/v1'),
      field(2, 'SelfSubjectAccessReview'),
    ]);
    const payload = Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, object)]);
    const res = await app.inject({
      method: 'POST',
      url: SSAR,
      headers: { 'content-type': PROTOBUF_MEDIA_TYPE },
      payload,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      spec: { resourceAttributes: { namespace: 'default', verb: 'delete', resource: 'pods' } },
      status: { allowed: true },
    });
    const garbage = await app.inject({
      method: 'POST',
      url: SSAR,
      headers: { 'content-type': PROTOBUF_MEDIA_TYPE },
      payload: Buffer.from('k8s\0\x12\x7f'),
    });
    expect([garbage.statusCode, garbage.json().message]).toEqual([
      400,
      'error decoding protobuf: truncated field',
    ]);
  });
});
