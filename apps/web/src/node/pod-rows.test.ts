import type { Pod } from '@syncscope/core/api';
import { describe, expect, it } from 'vitest';
import { containerStatus, pod, T0 } from '../lib/fixtures.ts';
import { filterEntries, naturalCompare, nextSort, podEntry, sortEntries } from './pod-rows.ts';

function withRestarts(name: string, restarts: number, createdS = 0): Pod {
  const p = pod(name, `uid-${name}`, {
    phase: 'Running',
    containerStatuses: [
      containerStatus('app', { ready: true, restartCount: restarts, state: { running: { startedAt: '' } } }),
    ],
  });
  p.metadata.creationTimestamp = new Date(T0 + createdS * 1000).toISOString();
  return p;
}

const names = (xs: { name: string }[]) => xs.map((x) => x.name);

describe('pods table model', () => {
  it('orders names naturally: load-2 before load-10', () => {
    const entries = ['load-10', 'load-2', 'load-1', 'Load-3'].map((n) => podEntry(withRestarts(n, 0), T0));
    expect(names(sortEntries(entries, { key: 'name', dir: 'asc' }))).toEqual([
      'load-1',
      'load-2',
      'Load-3',
      'load-10',
    ]);
    expect(names(sortEntries(entries, { key: 'name', dir: 'desc' }))).toEqual([
      'load-10',
      'Load-3',
      'load-2',
      'load-1',
    ]);
    expect(naturalCompare('a9', 'a10')).toBeLessThan(0);
  });

  it('sorts restarts as numbers and age youngest first, ties by name', () => {
    const entries = [
      podEntry(withRestarts('c', 10, 0), T0 + 60_000),
      podEntry(withRestarts('a', 9, 30), T0 + 60_000),
      podEntry(withRestarts('b', 9, 10), T0 + 60_000),
    ];
    expect(names(sortEntries(entries, { key: 'restarts', dir: 'asc' }))).toEqual(['a', 'b', 'c']);
    expect(names(sortEntries(entries, { key: 'restarts', dir: 'desc' }))).toEqual(['c', 'a', 'b']);
    expect(names(sortEntries(entries, { key: 'age', dir: 'asc' }))).toEqual(['a', 'b', 'c']);
  });

  it('sorts by status and filters by name or status in any case', () => {
    const running = podEntry(withRestarts('web-1', 0), T0);
    const pending = podEntry(pod('db-1', 'uid-db', { phase: 'Pending' }), T0);
    expect(names(sortEntries([running, pending], { key: 'status', dir: 'asc' }))).toEqual(['db-1', 'web-1']);
    expect(names(filterEntries([running, pending], '', 'PEND'))).toEqual(['db-1']);
    expect(names(filterEntries([running, pending], '', 'web'))).toEqual(['web-1']);
    expect(filterEntries([running, pending], 'kube-system', '')).toEqual([]);
  });

  it('keeps the pod grace period for the delete confirmation', () => {
    const p = withRestarts('x', 0);
    expect(podEntry(p, T0).graceS).toBe(30);
    p.spec.terminationGracePeriodSeconds = 5;
    expect(podEntry(p, T0).graceS).toBe(5);
  });

  it('flips the direction on the same column and starts another ascending', () => {
    expect(nextSort({ key: 'name', dir: 'asc' }, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort({ key: 'name', dir: 'desc' }, 'age')).toEqual({ key: 'age', dir: 'asc' });
  });
});
