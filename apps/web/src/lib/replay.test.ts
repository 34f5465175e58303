import { type Pod, printPod } from '@syncscope/core/api';
import { describe, expect, it } from 'vitest';
import { containerStatus, POD_REF, T0, traceBuilder } from './fixtures.ts';
import { buildReplay, podsFromEvents } from './replay.ts';

describe('buildReplay', () => {
  it('rebuilds pods from config and status updates, as kubectl would print them', () => {
    const ev = traceBuilder();
    const other = { podUID: 'uid-gone', pod: 'team/gone' };
    const events = [
      ev(0, { type: 'server.start', version: '0.1.0', runtime: 'simulated', endpoint: 'unix:///sim.sock' }),
      ev(1, { type: 'config.update', op: 'ADD', source: 'api', ...POD_REF }),
      ev(1, { type: 'config.update', op: 'ADD', source: 'api', ...other }),
      ev(2, { type: 'worker.state', from: null, to: 'SyncPod', ...POD_REF }),
      ev(5, {
        type: 'status.update',
        status: {
          phase: 'Running',
          containerStatuses: [containerStatus('app', { ready: true, state: { running: { startedAt: '' } } })],
        },
        ...POD_REF,
      }),
      ev(6, { type: 'config.update', op: 'REMOVE', source: 'api', ...other }),
      ev(40, { type: 'loop.iteration', source: 'sync', pods: 0, durationMs: 0 }),
    ];
    const r = buildReplay(events, 'trace.ndjson');
    expect(r.now).toBe(T0 + 40_000);
    expect(r.pods.items).toHaveLength(1);
    const row = printPod(r.pods.items[0] as Pod, r.now);
    expect([row.namespace, row.name, row.ready, row.status, row.age]).toEqual([
      'default',
      'web',
      '1/1',
      'Running',
      '39s',
    ]);
    expect(r.trace.byPod[POD_REF.podUID]).toHaveLength(3);
    expect(r.node.runtime.name).toBe('simulated');
    expect(r.node.sync.lastIteration).toBe(T0 + 40_000);
  });

  it('marks a deleted pod Terminating and names pods from any pod event', () => {
    const ev = traceBuilder();
    const pods = podsFromEvents([
      ev(1, { type: 'worker.state', from: null, to: 'SyncPod', podUID: 'u1', pod: 'kube-system/dns' }),
      ev(3, { type: 'config.update', op: 'DELETE', source: 'api', podUID: 'u1', pod: 'kube-system/dns' }),
    ]);
    expect(pods[0]?.metadata).toMatchObject({ namespace: 'kube-system', name: 'dns', uid: 'u1' });
    expect(printPod(pods[0] as Pod, T0 + 4000).status).toBe('Terminating');
  });

  it('lists a pod again that was REMOVEd and then ADDed with the same UID', () => {
    const ev = traceBuilder();
    const ref = { podUID: 'u1', pod: 'kube-system/etcd' };
    const pods = podsFromEvents([
      ev(1, { type: 'config.update', op: 'ADD', source: 'file', ...ref }),
      ev(2, { type: 'config.update', op: 'DELETE', source: 'file', ...ref }),
      ev(3, { type: 'config.update', op: 'REMOVE', source: 'file', ...ref }),
      ev(4, { type: 'config.update', op: 'ADD', source: 'file', ...ref }),
    ]);
    expect(pods.map((p) => [p.metadata.name, p.metadata.deletionTimestamp])).toEqual([['etcd', undefined]]);
  });
});
