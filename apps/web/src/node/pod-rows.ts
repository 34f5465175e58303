/**
 * The pods table's model: one entry per pod with the keys it is sorted and filtered by, the sort (natural
 * order for names, so load-2 comes before load-10) and the filter. Pure and cheap: PodsTable builds the
 * entries once per pods-list change and prints the visible rows' strings itself, so a 5,000-pod list costs
 * one sort per change of list or sort, and one linear scan per keystroke in the filter.
 */
import { type Pod, printPod } from '@syncscope/core/api';
import { factsOf, type RowCells, rowCells } from '../lib/pod-facts.ts';

export type SortKey = 'namespace' | 'name' | 'ready' | 'status' | 'restarts' | 'age';
type SortDir = 'asc' | 'desc';
export interface SortState {
  key: SortKey;
  dir: SortDir;
}

export const DEFAULT_SORT: SortState = { key: 'name', dir: 'asc' };

export interface PodEntry {
  pod: Pod;
  namespace: string;
  name: string;
  uid: string;
  /** printPod's STATUS and READY when the list arrived (they do not depend on the clock) */
  status: string;
  ready: string;
  /** RESTARTS as a number; −1 when a replay's trace does not show it */
  restarts: number;
  /** a replay's pod: the cells as core's pod-state reducer worked them out, with their provenance */
  cells?: RowCells;
  /** creation time, ms since epoch (0 when the pod has none) */
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

export function podEntry(pod: Pod, now: number): PodEntry {
  const printed = printPod(pod, now);
  const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : 0;
  const facts = factsOf(pod);
  const cells = facts && rowCells(facts);
  const status = cells ? (cells.status.basis === 'unknown' ? '' : cells.status.text) : printed.status;
  return {
    pod,
    namespace: printed.namespace,
    name: printed.name,
    uid: pod.metadata.uid ?? '',
    status,
    ready: cells ? cells.ready.text : printed.ready,
    restarts: cells ? cells.restartsN : Number.parseInt(printed.restarts, 10) || 0,
    ...(cells ? { cells } : {}),
    created: Number.isNaN(created) ? 0 : created,
    graceS: pod.spec.terminationGracePeriodSeconds ?? 30,
    haystack: `${printed.name}\n${status}`.toLowerCase(),
  };
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
