/**
 * In observe mode the write guard refuses every POST but the access reviews, which only answer: `auth
 * can-i` hears yes for reads and no for writes, from the real observe-mode server (no runtime behind it).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ObservedApp } from './app.ts';
import { type BareObserver, observeWithoutRuntime } from './observe-testing.ts';

const TOKEN = 'observe-review-token-0123456789';
let bare: BareObserver;
let observed: ObservedApp;

beforeAll(async () => {
  bare = await observeWithoutRuntime('observe-review-', TOKEN);
  observed = bare.observed;
}, 60_000);

afterAll(async () => {
  await bare?.close();
});

const post = (url: string, body: unknown) =>
  observed.app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });

const canI = async (verb: string, resource: string) => {
  const res = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    spec: { resourceAttributes: { namespace: 'default', verb, resource } },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().status;
};

it('answers the reviews in observe mode: reads yes, writes no; still refuses the writes', async () => {
  expect(await canI('list', 'pods')).toEqual({ allowed: true });
  expect(await canI('get', 'namespaces')).toEqual({ allowed: true });
  expect(await canI('create', 'pods')).toEqual({
    allowed: false,
    denied: true,
    reason: 'observe mode: this server does not change the node',
  });
  expect(await canI('delete', 'namespaces')).toMatchObject({ allowed: false });
  const rules = await post('/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
    kind: 'SelfSubjectRulesReview',
    spec: { namespace: 'default' },
  });
  expect(rules.json().status.resourceRules).toEqual([
    { verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] },
  ]);
  const create = await post('/api/v1/namespaces', { kind: 'Namespace', metadata: { name: 'x' } });
  expect([create.statusCode, create.json().message]).toEqual([
    403,
    'observe mode: this server does not change the node',
  ]);
});
