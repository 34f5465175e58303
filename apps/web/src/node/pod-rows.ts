/**
 * The pods table's model: one entry per row (the server's rows, or a replay's: lib/node-rows-cache.ts)
 * with the keys it is sorted and filtered by, the sort (natural order for names, so load-2 comes before
 * load-10) and the filter. Pure and cheap: an entry is made once per row object (a batch replaces only the
 * rows that changed), a batch that changes no sort key keeps the order without sorting again, and a
 * keystroke in the filter costs one linear scan.
 */
import type { PodRowSummary } from '../lib/pod-state-core.ts';

export type SortKey = 'namespace' | 'name' | 'ready' | 'status' | 'restarts' | 'age';
type SortDir = 'asc' | 'desc';
export interface SortState {
  key: SortKey;
  dir: SortDir;
}

export const DEFAULT_SORT: SortState = { key: 'name', dir: 'asc' };

export interface PodEntry {
  row: PodRowSummary;
  namespace: string;
  name: string;
  uid: string;
  /** STATUS ("" when unknown) and READY as printed */
  status: string;
  ready: string;
  /** RESTARTS as a number; −1 when the trace does not show it */
  restarts: number;
  /** creation time, ms since epoch */
  created: number;
  /** the grace period a delete uses when none is given: the pod's terminationGracePeriodSeconds */
  graceS: number;
  /** lower-cased name and status, for the filter */
  haystack: string;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Natural order: digit runs compare as numbers ("load-2" < "load-10"), case is ignored. */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b);
}

/** The kubelet's default terminationGracePeriodSeconds, for a pod whose spec the rows do not give. */
const DEFAULT_GRACE_S = 30;

const ENTRIES = new WeakMap<PodRowSummary, PodEntry>();

/** The entry of a row; made once per row object. */
export function rowEntry(row: PodRowSummary): PodEntry {
  const known = ENTRIES.get(row);
  if (known) return known;
  const status = row.status.basis === 'unknown' ? '' : row.status.text;
  const e: PodEntry = {
    row,
    namespace: row.namespace,
    name: row.name,
    uid: row.uid,
    status,
    ready: row.ready.text,
    restarts: row.restartCount,
    created: row.created,
    graceS: row.graceS ?? DEFAULT_GRACE_S,
    haystack: `${row.name}\n${status}`.toLowerCase(),
  };
  ENTRIES.set(row, e);
  return e;
}

/** READY "2/3" as a fraction, so 1/2 sorts before 2/2 */
function readyFraction(ready: string): number {
  const [a, b] = ready.split('/').map(Number);
  return b ? (a ?? 0) / b : 0;
}

const COMPARE: Record<SortKey, (a: PodEntry, b: PodEntry) => number> = {
  namespace: (a, b) => naturalCompare(a.namespace, b.namespace),
  name: (a, b) => naturalCompare(a.name, b.name),
  ready: (a, b) => readyFraction(a.ready) - readyFraction(b.ready),
  status: (a, b) => naturalCompare(a.status, b.status),
  restarts: (a, b) => a.restarts - b.restarts,
  // ascending AGE is youngest first, as the column reads
  age: (a, b) => b.created - a.created,
};

const SORT_VALUE: Record<SortKey, (e: PodEntry) => string | number> = {
  namespace: (e) => e.namespace,
  name: (e) => e.name,
  ready: (e) => e.ready,
  status: (e) => e.status,
  restarts: (e) => e.restarts,
  age: (e) => e.created,
};

/**
 * `entries` in the order of `prev` (sorted by `sort`) when that order still holds: the same pods, each
 * with the same namespace, name and sort value as the entry it replaces. O(n), no comparison; undefined
 * when the list must be sorted again.
 */
export function keepOrder(
  prev: readonly PodEntry[],
  entries: readonly PodEntry[],
  sort: SortState,
): PodEntry[] | undefined {
  if (prev.length !== entries.length) return undefined;
  const value = SORT_VALUE[sort.key];
  const byUID = new Map<string, PodEntry>();
  for (const e of entries) byUID.set(e.uid, e);
  const out: PodEntry[] = new Array(prev.length);
  for (let i = 0; i < prev.length; i++) {
    const old = prev[i] as PodEntry;
    const e = byUID.get(old.uid);
    if (!e || e.name !== old.name || e.namespace !== old.namespace || value(e) !== value(old))
      return undefined;
    out[i] = e;
  }
  return out;
}

/** A new array in the given order; ties fall back to namespace then name, so the order is total. */
export function sortEntries(entries: readonly PodEntry[], sort: SortState): PodEntry[] {
  const cmp = COMPARE[sort.key];
  const sign = sort.dir === 'asc' ? 1 : -1;
  return entries
    .slice()
    .sort(
      (a, b) =>
        sign * cmp(a, b) || naturalCompare(a.namespace, b.namespace) || naturalCompare(a.name, b.name),
    );
}

/** The entries in `namespace` (all when empty) whose name or status contains `search` (any case). */
export function filterEntries(entries: readonly PodEntry[], namespace: string, search: string): PodEntry[] {
  const needle = search.trim().toLowerCase();
  if (!namespace && !needle) return entries as PodEntry[];
  return entries.filter(
    (e) => (!namespace || e.namespace === namespace) && (!needle || e.haystack.includes(needle)),
  );
}

/** The next sort when a column header is clicked: the same column flips, another starts ascending. */
export function nextSort(current: SortState, key: SortKey): SortState {
  if (current.key === key) return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
  return { key, dir: 'asc' };
}
