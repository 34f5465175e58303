/**
 * Rows on the wire: a page of PodRowSummary (./row.ts) as arrays instead of objects, and every long string
 * that rows repeat (a rule, a reason it is unknown, an event's label) once in the page's `words`, each use
 * its index. Five thousand rows of pods in the same state then carry their few rules once, not 15,000
 * times: about 200 bytes a row instead of 750.
 *
 *   cell  [text, basis ('s' | 'i' | 'u'), why (word index, −1: none), seq (−1: none), line (−1: none)]
 *   row   [uid, namespace, name, status, ready, restarts, restartCount, created, lastEvent.at,
 *          lastEvent.label (word index), lastRestartAt, graceS, backoffUntil]   (the last three: null if unset)
 *
 * Browser-safe: no Node imports.
 */
import type { PodRowSummary, RowCell } from './row.ts';
import type { Basis } from './types.ts';

type WireCell = [string, string, number, number, number];
export type WireRow = [
  string,
  string,
  string,
  WireCell,
  WireCell,
  WireCell,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
];

/** Rows as they travel: `rows` index into `words`. */
export interface WireRows {
  words: string[];
  rows: WireRow[];
}

const BASIS_CODE: Record<Basis, string> = { stated: 's', inferred: 'i', unknown: 'u' };
const CODE_BASIS: Record<string, Basis> = { s: 'stated', i: 'inferred', u: 'unknown' };

export function encodeRows(rows: readonly PodRowSummary[]): WireRows {
  const words: string[] = [];
  const index = new Map<string, number>();
  const word = (w: string | undefined): number => {
    if (w === undefined) return -1;
    let i = index.get(w);
    if (i === undefined) {
      i = words.push(w) - 1;
      index.set(w, i);
    }
    return i;
  };
  const cell = (c: RowCell): WireCell => [
    c.text,
    BASIS_CODE[c.basis],
    word(c.why),
    c.from?.seq ?? -1,
    c.from?.line ?? -1,
  ];
  return {
    words,
    rows: rows.map((r) => [
      r.uid,
      r.namespace,
      r.name,
      cell(r.status),
      cell(r.ready),
      cell(r.restarts),
      r.restartCount,
      r.created,
      r.lastEvent.at,
      word(r.lastEvent.label),
      r.lastRestartAt ?? null,
      r.graceS ?? null,
      r.backoffUntil ?? null,
    ]),
  };
}

/** The rows back; throws on a page that is not one (a wrong shape, a word index out of range). */
export function decodeRows(page: WireRows): PodRowSummary[] {
  const { words } = page;
  const word = (i: number): string => {
    const w = words[i];
    if (typeof w !== 'string') throw new Error(`rows: no word ${i}`);
    return w;
  };
  const cell = (c: WireCell): RowCell => {
    const [text, code, why, seq, line] = c;
    const basis = CODE_BASIS[code];
    if (typeof text !== 'string' || !basis) throw new Error('rows: a cell is not [text, basis, …]');
    const out: RowCell = { text, basis };
    if (why >= 0) out.why = word(why);
    if (seq >= 0) out.from = line >= 0 ? { seq, line } : { seq };
    return out;
  };
  return page.rows.map((w) => {
    const [uid, namespace, name, status, ready, restarts, restartCount, created, at, label] = w;
    const row: PodRowSummary = {
      uid,
      namespace,
      name,
      status: cell(status),
      ready: cell(ready),
      restarts: cell(restarts),
      restartCount,
      created,
      lastEvent: { at, label: word(label) },
    };
    if (w[10] !== null) row.lastRestartAt = w[10];
    if (w[11] !== null) row.graceS = w[11];
    if (w[12] !== null) row.backoffUntil = w[12];
    return row;
  });
}
