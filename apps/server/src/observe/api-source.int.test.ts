/**
 * The apiserver source as the kubelet's config merge reads it, against a scripted API server over real HTTP:
 * which op each change of a pod bound to the node becomes, the grace a DELETE carries, the API's status for a
 * pod the runtime does not show, and the Events about held pods (one per count, waiting for their pod).
 */
import type { Event, Pod } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { TraceOf } from '@syncscope/core/events/trace';
import { expect, it } from 'vitest';
import { waitOnTrace } from '../../../../test/support/wait-trace.ts';
import { ApiSource } from './api-source.ts';
import { KubeClient } from './kube-client.ts';
import { json, live, scripted } from './kube-testing.ts';

let rv = 10;
function pod(
  name: string,
  extra: { labels?: Record<string, string>; phase?: string; deletion?: [string, number] } = {},
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: String(rv++),
      ...(extra.labels ? { labels: extra.labels } : {}),
      ...(extra.deletion
        ? { deletionTimestamp: extra.deletion[0], deletionGracePeriodSeconds: extra.deletion[1] }
        : {}),
    },
    spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'busybox' }] },
    status: { phase: (extra.phase ?? 'Pending') as 'Pending' },
  } as Pod;
}

function event(name: string, uid: string, count: number): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default', resourceVersion: String(rv++) },
    involvedObject: {
      kind: 'Pod',
      namespace: 'default',
      name: uid.slice(4),
      uid,
      fieldPath: 'spec.containers{app}',
    },
    reason: 'BackOff',
    message: 'Back-off restarting failed container',
    type: 'Warning',
    count,
    firstTimestamp: '2026-01-01T12:00:00Z',
    lastTimestamp: '2026-01-01T12:00:00Z',
    source: { component: 'kubelet', host: 'n1' },
  };
}

it('turns each change into the op of the kubelet merge, and keeps the Events of held pods', async () => {
  const pods = live();
  const events = live();
  const s = await scripted({
    '/api/v1/pods': [
      json({ kind: 'PodList', metadata: { resourceVersion: '5' }, items: [pod('a')] }),
      pods.answer,
    ],
    '/api/v1/events': [
      json({ kind: 'EventList', metadata: { resourceVersion: '5' }, items: [event('b.1', 'uid-b', 1)] }),
      events.answer,
    ],
  });
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock, 1_000);
  const source = new ApiSource({
    client: new KubeClient({ server: new URL(s.url), authorization: () => undefined }),
    nodeName: 'n1',
    clock,
    trace,
    warn: (m) => {
      throw new Error(m);
    },
    onRuntime: (uid) => uid === 'uid-a',
  });
  source.start();
  try {
    const ops = (uid: string) =>
      trace
        .since(0, (e) => e.type === 'config.update' && e.podUID === uid)
        .map((e) => {
          const c = e as TraceOf<'config.update'>;
          return c.op === 'DELETE' ? `DELETE ${c.gracePeriodS} ${c.deletionTimestamp}` : c.op;
        });
    const of = <T extends 'status.update' | 'k8s.event'>(type: T, uid: string) =>
      trace.since(0, (e) => e.type === type && e.podUID === uid) as TraceOf<T>[];
    await waitOnTrace(trace, 'ADD of a', () => ops('uid-a').length === 1);
    pods.send({ type: 'MODIFIED', object: pod('a', { phase: 'Running' }) });
    pods.send({ type: 'MODIFIED', object: pod('a', { phase: 'Running' }) });
    pods.send({ type: 'MODIFIED', object: pod('a', { phase: 'Running', labels: { tier: 'web' } }) });
    pods.send({ type: 'ADDED', object: pod('b') });
    const at = '2026-01-01T12:00:30Z';
    pods.send({
      type: 'MODIFIED',
      object: pod('a', { phase: 'Running', labels: { tier: 'web' }, deletion: [at, 30] }),
    });
    pods.send({
      type: 'MODIFIED',
      object: pod('a', { phase: 'Running', labels: { tier: 'web' }, deletion: [at, 0] }),
    });
    pods.send({
      type: 'DELETED',
      object: pod('a', { phase: 'Running', labels: { tier: 'web' }, deletion: [at, 0] }),
    });
    await waitOnTrace(trace, 'REMOVE of a', () => ops('uid-a').includes('REMOVE'));
    expect(ops('uid-a')).toEqual([
      'ADD',
      'RECONCILE',
      'UPDATE',
      `DELETE 30 ${at}`,
      `DELETE 0 ${at}`,
      'REMOVE',
    ]);
    expect(source.get('uid-a')).toBeUndefined();
    // a pod the runtime shows gets its status from the runtime, not the API
    expect(of('status.update', 'uid-a')).toEqual([]);
    expect(of('status.update', 'uid-b').map((e) => e.status.phase)).toEqual(['Pending']);
    expect(source.get('uid-b')?.metadata.name).toBe('b');

    // the Event listed before its pod was held, then a new count of it (once), then one of a pod not bound here
    events.send({ type: 'MODIFIED', object: event('b.1', 'uid-b', 2) });
    events.send({ type: 'MODIFIED', object: event('b.1', 'uid-b', 2) });
    events.send({ type: 'ADDED', object: event('x.1', 'uid-x', 1) });
    await waitOnTrace(trace, 'the second count', () => of('k8s.event', 'uid-b').length === 2);
    expect(of('k8s.event', 'uid-b').map((e) => [e.reason, e.count, e.eventType, e.fieldPath, e.pod])).toEqual(
      [
        ['BackOff', 1, 'Warning', 'spec.containers{app}', 'default/b'],
        ['BackOff', 2, 'Warning', 'spec.containers{app}', 'default/b'],
      ],
    );
    expect(trace.since(0, (e) => e.type === 'k8s.event' && e.podUID === 'uid-x')).toEqual([]);
    expect(s.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(s.requests.map((r) => r.url.searchParams.get('fieldSelector'))).toEqual(
      expect.arrayContaining(['spec.nodeName=n1', 'involvedObject.kind=Pod']),
    );
  } finally {
    await source.stop();
    s.close();
  }
});
