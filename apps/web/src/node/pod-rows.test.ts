import { describe, expect, it } from 'vitest';
import { T0 } from '../lib/fixtures.ts';
import { applyRowsBatch, rowsState } from '../lib/node-rows-cache.ts';
import type { PodRowSummary } from '../lib/pod-state-core.ts';
import {
  filterEntries,
  keepOrder,
  naturalCompare,
  nextSort,
  type PodEntry,
  rowEntry,
  type SortState,
  sortEntries,
} from './pod-rows.ts';

const stated = (text: string) => ({ text, basis: 'stated' as const, title: 'stated (event 1)' });

/** A row as the server sends it. */
function row(name: string, restarts = 0, createdS = 0, status = 'Running'): PodRowSummary {
  return {
    uid: `uid-${name}`,
    namespace: 'default',
    name,
    status: stated(status),
    ready: stated('1/1'),
    restarts: stated(String(restarts)),
    restartCount: restarts,
    created: T0 + createdS * 1000,
    lastEvent: { at: T0, label: 'status Running' },
  };
}

const names = (xs: { name: string }[]) => xs.map((x) => x.name);

describe('pods table model', () => {
  it('orders names naturally: load-2 before load-10', () => {
    const entries = ['load-10', 'load-2', 'load-1', 'Load-3'].map((n) => rowEntry(row(n)));
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
    const entries = [rowEntry(row('c', 10, 0)), rowEntry(row('a', 9, 30)), rowEntry(row('b', 9, 10))];
    expect(names(sortEntries(entries, { key: 'restarts', dir: 'asc' }))).toEqual(['a', 'b', 'c']);
    expect(names(sortEntries(entries, { key: 'restarts', dir: 'desc' }))).toEqual(['c', 'a', 'b']);
    expect(names(sortEntries(entries, { key: 'age', dir: 'asc' }))).toEqual(['a', 'b', 'c']);
  });

  it('sorts by status and filters by name or status in any case', () => {
    const running = rowEntry(row('web-1'));
    const pending = rowEntry(row('db-1', 0, 0, 'Pending'));
    expect(names(sortEntries([running, pending], { key: 'status', dir: 'asc' }))).toEqual(['db-1', 'web-1']);
    expect(names(filterEntries([running, pending], '', 'PEND'))).toEqual(['db-1']);
    expect(names(filterEntries([running, pending], '', 'web'))).toEqual(['web-1']);
    expect(filterEntries([running, pending], 'kube-system', '')).toEqual([]);
  });

  it('keeps the pod grace period for the delete confirmation, 30 s when the spec is not known', () => {
    expect(rowEntry(row('x')).graceS).toBe(30);
    expect(rowEntry({ ...row('y'), graceS: 5 }).graceS).toBe(5);
  });

  it('keeps the order of a batch that changes no sort key, and sorts again when one changes', () => {
    const sort: SortState = { key: 'restarts', dir: 'asc' };
    const first = rowsState({ cursor: 'r.1', rows: [row('a', 1), row('b', 2), row('c', 3)] });
    const sorted = sortEntries(first.list.map(rowEntry), sort);
    // b's newest event changed, its restarts did not: same order, b's new entry in place
    const calm = applyRowsBatch(first, {
      cursor: 'r.2',
      rows: [{ ...row('b', 2), lastEvent: { at: T0 + 1, label: 'PLEG ContainerStarted' } }],
      removed: [],
      full: false,
    });
    const kept = keepOrder(sorted, calm.list.map(rowEntry), sort) as PodEntry[];
    expect(names(kept)).toEqual(['a', 'b', 'c']);
    expect(kept[1]?.row.lastEvent.label).toBe('PLEG ContainerStarted');
    expect(kept[0]).toBe(sorted[0]);
    // b restarted past c: the order must be worked out again
    const moved = applyRowsBatch(calm, { cursor: 'r.3', rows: [row('b', 4)], removed: [], full: false });
    expect(keepOrder(kept, moved.list.map(rowEntry), sort)).toBeUndefined();
    // a removal changes the set
    const gone = applyRowsBatch(calm, { cursor: 'r.4', rows: [], removed: ['uid-a'], full: false });
    expect(names(gone.list as PodRowSummary[])).toEqual(['b', 'c']);
    expect(keepOrder(kept, gone.list.map(rowEntry), sort)).toBeUndefined();
    // a full answer replaces everything
    const full = applyRowsBatch(gone, { cursor: 's.1', rows: [row('z')], removed: [], full: true });
    expect(names(full.list as PodRowSummary[])).toEqual(['z']);
  });

  it('flips the direction on the same column and starts another ascending', () => {
    expect(nextSort({ key: 'name', dir: 'asc' }, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort({ key: 'name', dir: 'desc' }, 'age')).toEqual({ key: 'age', dir: 'asc' });
  });
});
