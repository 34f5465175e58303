import type { PodList } from '@syncscope/core/api';
import { printPod } from '@syncscope/core/api';
import { describe, expect, it } from 'vitest';
import { containerStatus, POD_REF, pod, T0, traceBuilder } from './fixtures.ts';
import { applyEventsToPods, applyEventToPods } from './pods-cache.ts';

const list = (): PodList => ({
  apiVersion: 'v1',
  kind: 'PodList',
  metadata: {},
  items: [pod('web', POD_REF.podUID, { phase: 'Pending' }), pod('db', 'uid-db', { phase: 'Running' })],
});

describe('applyEventToPods', () => {
  it('status.update replaces the status the table prints', () => {
    const ev = traceBuilder();
    const running = containerStatus('app', { state: { running: {} }, ready: true, started: true });
    const before = list();
    const { list: after, refetch } = applyEventToPods(
      before,
      ev(1, {
        type: 'status.update',
        status: { phase: 'Running', containerStatuses: [running] },
        ...POD_REF,
      }),
    );
    expect(refetch).toBe(false);
    expect(printPod(after.items[0] as never, T0).status).toBe('Running');
    expect(printPod(before.items[0] as never, T0).status).toBe('Pending');
    expect(after.items[1]).toBe(before.items[1]);
  });

  it('asks for a refetch for a pod it does not list, and on deletion', () => {
    const ev = traceBuilder();
    const unknown = { podUID: 'uid-new', pod: 'default/new' };
    expect(
      applyEventToPods(list(), ev(1, { type: 'status.update', status: { phase: 'Pending' }, ...unknown })),
    ).toMatchObject({ refetch: true });
    expect(
      applyEventToPods(list(), ev(1, { type: 'config.update', op: 'ADD', source: 'api', ...unknown })),
    ).toMatchObject({ refetch: true });
    expect(
      applyEventToPods(list(), ev(1, { type: 'config.update', op: 'DELETE', source: 'api', ...POD_REF })),
    ).toMatchObject({ refetch: true });
  });

  it('config.update REMOVE drops the pod; other events leave the list as it is', () => {
    const ev = traceBuilder();
    const l = list();
    const r = applyEventsToPods(l, [
      ev(1, { type: 'loop.iteration', source: 'sync', pods: 2, durationMs: 0 }),
      ev(2, { type: 'config.update', op: 'REMOVE', source: 'api', ...POD_REF }),
    ]);
    expect(r.refetch).toBe(false);
    expect(r.list.items.map((p) => p.metadata.name)).toEqual(['db']);
    expect(
      applyEventToPods(
        l,
        ev(3, { type: 'housekeeping', durationMs: 1, forgotten: 0, orphansKilled: 0, restarted: 0 }),
      ).list,
    ).toBe(l);
  });
});

describe('applyEventsToPods', () => {
  it('applies every status in a batch in order, copying the list once and leaving others as they were', () => {
    const ev = traceBuilder();
    const before = list();
    const running = containerStatus('app', { state: { running: {} }, ready: true, started: true });
    const r = applyEventsToPods(before, [
      ev(1, { type: 'status.update', status: { phase: 'Pending' }, ...POD_REF }),
      ev(2, {
        type: 'status.update',
        status: { phase: 'Running', containerStatuses: [running] },
        ...POD_REF,
      }),
    ]);
    expect(r.refetch).toBe(false);
    expect(printPod(r.list.items[0] as never, T0).status).toBe('Running');
    expect(r.list.items[1]).toBe(before.items[1]);
    expect(printPod(before.items[0] as never, T0).status).toBe('Pending');
    const none = applyEventsToPods(before, [
      ev(3, { type: 'loop.iteration', source: 'sync', pods: 2, durationMs: 0 }),
    ]);
    expect(none.list).toBe(before);
  });
});
