/**
 * PodVersions read off a trace: versions are the seq of a pod's last config or status event, a watch from
 * a version gets one event per changed pod, and a restart (the stored pods added back, their status
 * reported again unchanged) is no change.
 */
import type { Pod, PodStatus } from '@syncscope/core/api';
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import { describe, expect, it } from 'vitest';
import { FakeEngine } from '../testing.ts';
import { type PodChange, PodVersions } from './watch.ts';

function pod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  };
}

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const engine = new FakeEngine(clock);
  const ref = (p: Pod) => ({ podUID: p.metadata.uid as string, pod: `default/${p.metadata.name}` });
  const add = (p: Pod) => {
    engine.addPod(p);
    return trace.record({ type: 'config.update', op: 'ADD', source: 'api', ...ref(p) }).seq;
  };
  const status = (p: Pod, s: PodStatus) => {
    (engine.pods.get(p.metadata.uid as string) as Pod).status = s;
    return trace.record({ type: 'status.update', status: s, ...ref(p) }).seq;
  };
  const remove = (p: Pod) => {
    engine.pods.delete(p.metadata.uid as string);
    return trace.record({ type: 'config.update', op: 'REMOVE', source: 'api', ...ref(p) }).seq;
  };
  const start = () =>
    trace.record({ type: 'server.start', version: 't', runtime: 'simulated', endpoint: '' });
  return { trace, engine, add, status, remove, start };
}

describe('PodVersions', () => {
  it('gives each pod the seq of its last event, and a watch from a version one event per changed pod', () => {
    const t = setup();
    t.start();
    const a = pod('a');
    const b = pod('b');
    t.add(a);
    const rvA = t.status(a, { phase: 'Pending' });
    const from = t.trace.next - 1;
    t.add(b);
    t.status(b, { phase: 'Pending' });
    const lastA = t.status(a, { phase: 'Running' });
    const v = new PodVersions(t.trace, t.engine);
    expect(v.version('uid-a')).toBe(lastA);
    expect(v.listVersion()).toBe(t.trace.next - 1);
    const changes = v.changesSince(from) as PodChange[];
    expect(changes.map((c) => [c.type, c.pod.metadata.name, c.pod.metadata.resourceVersion])).toEqual([
      ['ADDED', 'b', String(lastA - 1)],
      ['MODIFIED', 'a', String(lastA)],
    ]);
    expect((v.changesSince(rvA - 1) as PodChange[]).map((c) => c.pod.metadata.name)).toEqual(['b', 'a']);
    v.close();
  });

  it('after a restart an unchanged pod is no change; a changed status and a removal are', () => {
    const t = setup();
    t.start();
    const a = pod('a');
    const gone = pod('gone');
    t.add(a);
    t.add(gone);
    t.status(a, { phase: 'Running' });
    const seen = t.trace.next - 1; // the version a client holds when the server stops
    // the restart: a new run adds the stored pod back with its last status and reports it again
    t.start();
    t.engine.pods.clear();
    t.add(a);
    (t.engine.pods.get('uid-a') as Pod).status = { phase: 'Running' }; // its last reported status, restored
    t.remove(gone);
    const v = new PodVersions(t.trace, t.engine);
    const told: PodChange[] = [];
    v.subscribe((c) => told.push(c));
    t.status(a, { phase: 'Running' });
    expect((v.changesSince(seen) as PodChange[]).map((c) => [c.type, c.pod.metadata.name])).toEqual([
      ['DELETED', 'gone'],
    ]);
    expect(told).toEqual([]);
    t.status(a, { phase: 'Failed' });
    expect(told.map((c) => [c.type, c.pod.status?.phase])).toEqual([['MODIFIED', 'Failed']]);
    v.close();
  });
});
