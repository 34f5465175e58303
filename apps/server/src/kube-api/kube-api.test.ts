import type { Pod } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHttpApp } from '../http.ts';
import { parseCriLog } from '../pod-logs.ts';
import { FakeEngine } from '../testing.ts';
import { logLimits } from './log-follow.ts';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

let app: FastifyInstance;
let engine: FakeEngine;
let trace: TraceRecorder;
let clock: FakeClock;

function add(name: string, ns = 'default', labels: Record<string, string> = {}, phase = 'Running'): Pod {
  const uid = `uid-${ns}-${name}`;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, uid, labels, creationTimestamp: '2026-01-01T11:00:00Z' },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  };
  engine.addPod(pod);
  (engine.getPodByUID(uid) as Pod).status = { phase: phase as 'Running' };
  trace.record({ type: 'config.update', op: 'ADD', source: 'api', podUID: uid, pod: `${ns}/${name}` });
  return pod;
}

beforeEach(async () => {
  clock = new FakeClock();
  engine = new FakeEngine(clock);
  trace = new TraceRecorder(clock, 1000);
  app = await createHttpApp({ engine, trace, clock });
});
afterEach(() => app.close());

const get = (url: string, accept?: string) =>
  app.inject({ method: 'GET', url, headers: accept ? { accept } : {} });

describe('discovery', () => {
  it('lists core v1 and its resources, the authorization group, and a version', async () => {
    expect((await get('/api')).json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const v1 = (await get('/api/v1')).json();
    expect(v1.kind).toBe('APIResourceList');
    const names = v1.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(['events', 'namespaces', 'nodes', 'pods', 'pods/log', 'pods/status']);
    expect(v1.resources.find((r: { name: string }) => r.name === 'pods').shortNames).toEqual(['po']);
    expect((await get('/apis')).json().groups.map((g: { name: string }) => g.name)).toEqual([
      'authorization.k8s.io',
    ]);
    expect((await get('/version')).json()).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.10' });
    expect((await get('/livez')).body).toBe('ok');
    expect((await get('/readyz')).body).toBe('ok');
  });

  it('answers a 404 Status, never the page, under /api, /apis, /openapi and /version', async () => {
    for (const url of [
      '/openapi/v1',
      '/openapi/v3/apis/apps/v1',
      '/apis/apps/v1',
      '/api/v2',
      '/version/x',
      '/apis/x/y/z',
    ]) {
      const res = await get(url, 'text/html');
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    }
  });
});

describe('pod lists', () => {
  it('carry resourceVersions from the trace: a pod its last change, a list the newest seq', async () => {
    const a = add('a');
    add('b');
    const first = (await get('/api/v1/namespaces/default/pods')).json();
    expect(first.metadata.resourceVersion).toBe(String(trace.next - 1));
    const rvA = first.items[0].metadata.resourceVersion;
    expect(first.items.map((p: Pod) => p.spec.nodeName)).toEqual(['fake', 'fake']);
    // a read changes nothing
    expect((await get('/api/v1/namespaces/default/pods/a')).json().metadata.resourceVersion).toBe(rvA);
    const ev = trace.record({
      type: 'status.update',
      podUID: a.metadata.uid as string,
      pod: 'default/a',
      status: { phase: 'Running' },
    });
    expect((await get('/api/v1/namespaces/default/pods/a')).json().metadata.resourceVersion).toBe(
      String(ev.seq),
    );
    expect(Number(ev.seq)).toBeGreaterThan(Number(rvA));
  });

  it('select by labels and fields, and refuse a bad selector or resourceVersion with a 400', async () => {
    add('web', 'default', { app: 'web', tier: 'front' });
    add('db', 'default', { app: 'db' }, 'Pending');
    add('job', 'batch', { app: 'job' }, 'Succeeded');
    const names = async (q: string) =>
      (await get(`/api/v1/pods?${q}`)).json().items.map((p: Pod) => p.metadata.name);
    expect(await names('labelSelector=app%20in%20(web,job)')).toEqual(['job', 'web']);
    expect(await names('labelSelector=!tier')).toEqual(['job', 'db']);
    expect(await names('fieldSelector=status.phase%3DPending')).toEqual(['db']);
    expect(await names('fieldSelector=spec.nodeName%3Dfake,status.phase!%3DSucceeded')).toEqual([
      'db',
      'web',
    ]);
    expect(await names('fieldSelector=metadata.namespace%3Dbatch')).toEqual(['job']);
    const bad = await get('/api/v1/pods?labelSelector=app%20in%20web');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      reason: 'BadRequest',
      message: "unable to parse requirement: found 'web' expected: '('",
    });
    const field = await get('/api/v1/pods?fieldSelector=spec.foo%3Dx');
    expect(field.json()).toMatchObject({ code: 400, message: 'field label not supported: spec.foo' });
    const rv = await get('/api/v1/pods?resourceVersion=abc');
    expect(rv.statusCode).toBe(400);
    expect(rv.json().message).toBe(
      'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
  });

  it('page with limit and continue, every pod once', async () => {
    for (const n of ['e', 'a', 'd', 'c', 'b']) add(n);
    const seen: string[] = [];
    let cont = '';
    for (let i = 0; i < 5; i++) {
      const page = (await get(`/api/v1/pods?limit=2${cont ? `&continue=${cont}` : ''}`)).json();
      seen.push(...page.items.map((p: Pod) => p.metadata.name));
      cont = page.metadata.continue ?? '';
      if (!cont) break;
      expect(page.metadata.remainingItemCount).toBe(5 - seen.length);
    }
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await get('/api/v1/pods?continue=nonsense')).statusCode).toBe(400);
  });

  it('answers a Table with kubectl columns and row metadata when asked', async () => {
    add('web');
    const t = (await get('/api/v1/namespaces/default/pods', TABLE)).json();
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.k8s.io/v1');
    expect(t.columnDefinitions.map((c: { name: string }) => c.name).slice(0, 5)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
    ]);
    expect(t.rows[0].cells.slice(0, 3)).toEqual(['web', '0/1', 'Running']);
    expect(t.rows[0].object).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'web', namespace: 'default' },
    });
    const one = (await get('/api/v1/namespaces/default/pods/web', TABLE)).json();
    expect(one.rows).toHaveLength(1);
    expect((await get('/api/v1/namespaces/default/pods/nope')).json()).toMatchObject({
      code: 404,
      message: 'pods "nope" not found',
    });
  });
});

describe('events, the node and namespaces', () => {
  it('serve namespaced events selectable by involvedObject, the Node and the namespaces of the pods', async () => {
    add('web');
    add('job', 'batch');
    const base = {
      apiVersion: 'v1' as const,
      kind: 'Event' as const,
      type: 'Normal' as const,
      count: 1,
      firstTimestamp: '2026-01-01T12:00:00Z',
      lastTimestamp: '2026-01-01T12:00:00Z',
      source: { component: 'kubelet', host: 'fake' },
      message: 'Started container app',
    };
    engine.events = [
      {
        ...base,
        metadata: { name: 'web.1', namespace: 'default' },
        involvedObject: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'uid-default-web' },
        reason: 'Started',
      },
      {
        ...base,
        metadata: { name: 'job.1', namespace: 'batch' },
        involvedObject: { kind: 'Pod', namespace: 'batch', name: 'job', uid: 'uid-batch-job' },
        reason: 'Started',
      },
    ];
    expect((await get('/api/v1/events')).json().items).toHaveLength(2);
    const ns = (await get('/api/v1/namespaces/batch/events')).json();
    expect(ns.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual(['job.1']);
    const sel = (
      await get(
        '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dweb,involvedObject.uid%3Duid-default-web',
      )
    ).json();
    expect(sel.items).toHaveLength(1);
    expect(sel.items[0].metadata.resourceVersion).toMatch(/^\d+$/);

    const nodes = (await get('/api/v1/nodes')).json();
    expect(nodes.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual(['fake']);
    const node = (await get('/api/v1/nodes/fake')).json();
    expect(node.status.conditions.find((c: { type: string }) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
      message: 'kubelet is posting ready status',
    });
    expect(node.status.nodeInfo).toMatchObject({
      containerRuntimeVersion: 'fake://0',
      kubeletVersion: 'v1.32.10',
    });
    expect(node.status.capacity.pods).toBe('110');
    expect((await get('/api/v1/nodes/other')).json()).toMatchObject({
      code: 404,
      message: 'nodes "other" not found',
    });

    const names = (await get('/api/v1/namespaces'))
      .json()
      .items.map((n: { metadata: { name: string } }) => n.metadata.name);
    expect(names).toEqual(['batch', 'default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect((await get('/api/v1/namespaces/batch')).json()).toMatchObject({
      kind: 'Namespace',
      status: { phase: 'Active' },
    });
    expect((await get('/api/v1/namespaces/none')).statusCode).toBe(404);
  });
});

describe('log options', () => {
  const LOG = [
    '2026-01-01T12:00:00.000000000Z stdout F one',
    '2026-01-01T12:01:00.000000000Z stdout F two',
    '2026-01-01T12:02:00.000000000Z stderr F three',
    '',
  ].join('\n');

  it('since and limitBytes cut the output as the kubelet does', () => {
    const now = Date.parse('2026-01-01T12:02:30Z');
    const since = logLimits({ sinceSeconds: '100' }, now);
    expect(since).toEqual({ sinceMs: now - 100_000 });
    expect(parseCriLog(LOG, since as { sinceMs: number })).toBe('two\nthree\n');
    expect(parseCriLog(LOG, logLimits({ sinceTime: '2026-01-01T12:02:00Z' }, now) as object)).toBe('three\n');
    expect(parseCriLog(LOG, { limitBytes: 6 })).toBe('one\ntw');
    expect(logLimits({ sinceSeconds: '0' }, now)).toMatchObject({ code: 400 });
    expect(logLimits({ sinceSeconds: '1', sinceTime: '2026-01-01T12:00:00Z' }, now)).toMatchObject({
      message: 'at most one of `sinceTime` or `sinceSeconds` may be specified',
    });
  });
});
