/**
 * A pod's row on the node page, cut from the reducer's snapshot (./reducer.ts): kubectl's NAMESPACE, NAME,
 * READY, STATUS, RESTARTS and AGE, each printed fact with its basis and provenance, plus the pod's newest
 * event and the end of the back-off window in force. Small and plain (JSON as it is), so a server can keep
 * one per pod and send only the rows that changed; the page prints the clock-dependent parts (AGE, the
 * "(5s ago)" of RESTARTS, the back-off countdown) itself.
 *
 * Browser-safe: no Node imports.
 */
import { type Basis, type Fact, type PodSnapshot, provenance, type Source } from './types.ts';

/**
 * One printed fact: its text ("—" when unknown), its basis, and what its provenance is made of: the rule
 * that inferred it or why it is unknown (`why`), the event (and log line) that said it or set the rule off.
 * `cellTitle` puts them in words; they travel apart so that rows share the few distinct rules by reference.
 */
export interface RowCell {
  text: string;
  basis: Basis;
  why?: string;
  from?: Source;
}

export interface PodRowSummary {
  uid: string;
  namespace: string;
  name: string;
  /** kubectl's STATUS (printPod's rules over the reducer's facts) */
  status: RowCell;
  /** kubectl's READY, "1/2" */
  ready: RowCell;
  /** kubectl's RESTARTS without its "(… ago)"; "≥3" when the trace began after the pod did */
  restarts: RowCell;
  /** RESTARTS as a number for sorting, −1 when unknown */
  restartCount: number;
  /** when the newest restarted container last finished (ms), for RESTARTS' "(… ago)" */
  lastRestartAt?: number;
  /** the pod's creation (ms): its creationTimestamp when known, else its first event */
  created: number;
  /** the grace period a delete uses when none is given, when the pod's spec is known */
  graceS?: number;
  /** the pod's newest event: its time and a few words */
  lastEvent: { at: number; label: string };
  /** the back-off window in force ends then (ms): the next start is due at the first sync after it */
  backoffUntil?: number;
}

const UNKNOWN_TEXT = '—';

function rowCell<T>(f: Fact<T>, text: (v: T) => string): RowCell {
  if (f.basis === 'unknown') return { text: UNKNOWN_TEXT, basis: 'unknown', why: f.why };
  const cell: RowCell = { text: text(f.value), basis: f.basis };
  if (f.basis === 'inferred') cell.why = f.rule;
  if (f.from) cell.from = f.from;
  return cell;
}

/** A cell's provenance in words, as `provenance` says a fact's: "stated (event 42)", "inferred: <rule>". */
export function cellTitle(c: RowCell): string {
  const fact: Fact<string> =
    c.basis === 'unknown'
      ? { basis: 'unknown', why: c.why ?? '' }
      : c.basis === 'stated'
        ? { basis: 'stated', value: c.text, from: c.from ?? { seq: 0 } }
        : { basis: 'inferred', value: c.text, rule: c.why ?? '', ...(c.from ? { from: c.from } : {}) };
  return provenance(fact);
}

/** What the snapshot does not hold: the pod's spec-given facts and its newest event's words. */
export interface RowExtras {
  created?: number;
  graceS?: number;
  lastLabel: string;
}

/** The row of one pod (its snapshot as of now). */
export function podRowSummary(s: PodSnapshot, extras: RowExtras): PodRowSummary {
  const slash = s.pod.indexOf('/');
  let lastRestartAt: number | undefined;
  for (const c of s.containers) {
    if (c.init || c.restartCount.basis === 'unknown' || c.restartCount.value === 0) continue;
    if (c.lastState.basis === 'unknown' || !c.lastState.value) continue;
    const at = c.lastState.value.finishedAt;
    if (at !== undefined && (lastRestartAt === undefined || at > lastRestartAt)) lastRestartAt = at;
  }
  let backoffUntil: number | undefined;
  for (const b of s.backoffs)
    if (b.until > s.asOf && b.outcome.kind !== 'restarted' && (backoffUntil ?? 0) < b.until)
      backoffUntil = b.until;
  return {
    uid: s.uid,
    namespace: slash > 0 ? s.pod.slice(0, slash) : 'default',
    name: slash > 0 ? s.pod.slice(slash + 1) : s.pod,
    status: rowCell(s.statusWord, (w) => w),
    ready: rowCell(s.ready, (r) => `${r.ready}/${r.total}`),
    restarts: rowCell(s.restarts, (n) => (s.restarts.atLeast ? `≥${n}` : String(n))),
    restartCount: s.restarts.basis === 'unknown' ? -1 : s.restarts.value,
    ...(lastRestartAt !== undefined ? { lastRestartAt } : {}),
    created: extras.created ?? s.firstSeen,
    ...(extras.graceS !== undefined ? { graceS: extras.graceS } : {}),
    lastEvent: { at: s.lastSeen, label: extras.lastLabel },
    ...(backoffUntil !== undefined ? { backoffUntil } : {}),
  };
}

/** Two rows say the same (the server sends a row again only when it does not). */
export function sameRow(a: PodRowSummary, b: PodRowSummary): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
