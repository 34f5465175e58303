/**
 * The pods table's rows as the page caches them: the server's rows (GET /api/v1/node/rows, then the
 * batches of /api/v1/node/rows/stream) by pod, with the cursor the stream resumes after. Pure: a batch gives
 * a new state (the rows it does not name are the same objects as before, so whatever was derived from
 * them can be kept), a batch marked `full` replaces everything.
 *
 * In a replay the rows come from the replay's own reducer (`replayRows`), cut the same way the server cuts
 * them (core's podRowSummary), so the table reads one shape whichever the source.
 */
import type { Pod } from '@syncscope/core/api';
import { factsOf } from './pod-facts.ts';
import { decodeRows, type PodRowSummary, podRowSummary, type WireRows } from './pod-state-core.ts';

/** GET /api/v1/node/rows: every pod's row (packed: core's encodeRows) and the cursor to resume after. */
export type NodeRowsPage = { cursor: string } & WireRows;

/** Rows and the cursor they are current to. */
export interface NodeRows {
  cursor: string;
  rows: PodRowSummary[];
}

/** One message of the stream, unpacked: rows that changed (whole), uids removed; `full`: every row. */
export interface NodeRowsBatch extends NodeRows {
  removed: string[];
  full: boolean;
}

export interface NodeRowsState {
  cursor: string;
  byUID: ReadonlyMap<string, PodRowSummary>;
  /** the rows in no particular order (the table sorts) */
  list: readonly PodRowSummary[];
}

/** A page as the server sends it, unpacked; throws when it is not one. */
export function pageRows(page: NodeRowsPage): NodeRows {
  if (typeof page?.cursor !== 'string' || !Array.isArray(page.rows) || !Array.isArray(page.words))
    throw new Error('the node rows are not {cursor, words, rows}');
  return { cursor: page.cursor, rows: decodeRows(page) };
}

export function rowsState(page: NodeRows): NodeRowsState {
  const byUID = new Map(page.rows.map((r) => [r.uid, r]));
  return { cursor: page.cursor, byUID, list: [...byUID.values()] };
}

/** Applies one batch. O(rows): the map is copied once per batch, not per row. */
export function applyRowsBatch(old: NodeRowsState | undefined, batch: NodeRowsBatch): NodeRowsState {
  if (!old || batch.full) return rowsState(batch);
  if (batch.rows.length === 0 && batch.removed.length === 0) return { ...old, cursor: batch.cursor };
  const byUID = new Map(old.byUID);
  for (const r of batch.rows) byUID.set(r.uid, r);
  for (const uid of batch.removed) byUID.delete(uid);
  return { cursor: batch.cursor, byUID, list: [...byUID.values()] };
}

/** Checks the shape of a stream message; undefined when it is not a rows batch. */
export function parseRowsBatch(data: string): NodeRowsBatch | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof msg !== 'object' || msg === null) return undefined;
  const m = msg as Partial<NodeRowsPage & { kind: string; removed: string[]; full: boolean }>;
  if (m.kind !== 'rows' || !Array.isArray(m.removed)) return undefined;
  try {
    const { cursor, rows } = pageRows(m as NodeRowsPage);
    return { cursor, rows, removed: m.removed, full: m.full === true };
  } catch {
    return undefined;
  }
}

/** A replay's rows: each listed pod's snapshot from the replay's reducer, cut as the server cuts it. */
export function replayRows(pods: readonly Pod[]): NodeRowsState {
  const rows: PodRowSummary[] = [];
  for (const pod of pods) {
    const s = factsOf(pod);
    if (!s) continue;
    const created = Date.parse(pod.metadata.creationTimestamp ?? '');
    const graceS = pod.spec.terminationGracePeriodSeconds;
    rows.push(
      podRowSummary(s, {
        ...(Number.isNaN(created) ? {} : { created }),
        ...(graceS !== undefined ? { graceS } : {}),
        lastLabel: '',
      }),
    );
  }
  return rowsState({ cursor: '', rows });
}
