import type { Pod } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { FakeEngine } from '../testing.ts';

let app: FastifyInstance;
let engine: FakeEngine;
let trace: TraceRecorder;

beforeEach(async () => {
  const clock = new FakeClock();
  engine = new FakeEngine(clock);
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine, trace, clock });
});
afterEach(() => app.close());

const createNs = (name: string, query = '') =>
  app.inject({ method: 'POST', url: `/api/v1/namespaces${query}`, payload: { metadata: { name } } });
const createPod = (ns: string, name: string) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/namespaces/${ns}/pods`,
    payload: { metadata: { name }, spec: { containers: [{ name: 'app', image: 'busybox' }] } },
  });
const names = async () =>
  (await app.inject('/api/v1/namespaces'))
    .json()
    .items.map((n: { metadata: { name: string } }) => n.metadata.name);

/** The engine lets the pod go, as the kubelet does once its worker has terminated it. */
function podGone(uid: string) {
  const pod = engine.pods.get(uid) as Pod;
  engine.pods.delete(uid);
  trace.record({
    type: 'config.update',
    op: 'REMOVE',
    source: 'api',
    podUID: uid,
    pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
  });
}

describe('namespaces as objects', () => {
  it('creates one with its name label, refuses a bad or taken name, and keeps nothing on a dry run', async () => {
    const dry = await createNs('trial', '?dryRun=All');
    expect(dry.statusCode).toBe(201);
    expect(dry.json()).toMatchObject({ metadata: { name: 'trial' }, status: { phase: 'Active' } });
    expect(await names()).not.toContain('trial');
    const made = await createNs('team-a');
    expect(made.statusCode).toBe(201);
    expect(made.json().metadata).toMatchObject({
      labels: { 'kubernetes.io/metadata.name': 'team-a' },
      uid: expect.any(String),
    });
    expect((await createNs('team-a')).json()).toMatchObject({ code: 409, reason: 'AlreadyExists' });
    const bad = await createNs('Team_A');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(
      /^Namespace "Team_A" is invalid: metadata\.name: Invalid value: "Team_A": a lowercase RFC 1123 label/,
    );
    expect(await names()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system', 'team-a']);
  });

  it('takes a pod only in a namespace that exists and is not terminating', async () => {
    const lost = await createPod('nowhere', 'p');
    expect(lost.statusCode).toBe(404);
    expect(lost.json()).toMatchObject({
      reason: 'NotFound',
      message: 'namespaces "nowhere" not found',
      details: { name: 'nowhere', kind: 'namespaces' },
    });
    expect(engine.pods.size).toBe(0);
    await createNs('team-a');
    expect((await createPod('team-a', 'p')).statusCode).toBe(201);
    expect((await createPod('kube-system', 'q')).statusCode).toBe(201);
  });

  it('deletes as the namespace controller does: Terminating, its pods deleted, gone with the last', async () => {
    await createNs('team-a');
    const uid = (await createPod('team-a', 'p')).json().metadata.uid as string;
    const dry = await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/team-a?dryRun=All' });
    expect(dry.json().status.phase).toBe('Terminating');
    expect(engine.deletes).toEqual([]);
    const del = await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/team-a' });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toMatchObject({
      metadata: { name: 'team-a', deletionTimestamp: expect.any(String) },
      status: { phase: 'Terminating' },
    });
    expect(engine.deletes.map((d) => d.uid)).toEqual([uid]);
    const late = await createPod('team-a', 'late');
    expect([late.statusCode, late.json().message]).toEqual([
      403,
      'pods "late" is forbidden: unable to create new content in namespace team-a because it is being terminated',
    ]);
    expect((await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/team-a' })).json()).toMatchObject({
      code: 409,
      reason: 'Conflict',
    });
    expect(await names()).toContain('team-a');
    podGone(uid);
    expect(await names()).not.toContain('team-a');
    expect((await app.inject('/api/v1/namespaces/team-a')).statusCode).toBe(404);
  });

  it('keeps default, kube-system and kube-public', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const res = await app.inject({ method: 'DELETE', url: `/api/v1/namespaces/${ns}` });
      expect([res.statusCode, res.json().message]).toEqual([
        403,
        `namespaces "${ns}" is forbidden: this namespace may not be deleted`,
      ]);
    }
    const lease = await app.inject({ method: 'DELETE', url: '/api/v1/namespaces/kube-node-lease' });
    expect(lease.statusCode).toBe(200);
    expect(await names()).toEqual(['default', 'kube-public', 'kube-system']);
  });
});
