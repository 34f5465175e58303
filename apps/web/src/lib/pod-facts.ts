/**
 * A replay's pods as core's pod-state reducer worked them out (lib/pod-state-core.ts), for the views: the
 * pods table's STATUS, READY and RESTARTS cells and the pod page's containers, each with its provenance.
 *
 * A replay's Pod objects are registered here with their snapshot (ReplayFacts.pods); a live pod never is, so
 * the live views print kubectl's strings from the engine's status as before. A fact prints as:
 *   stated    its value, plain; the title says the event (and log line) that said it
 *   inferred  its value in the inferred style; the title is "inferred: <the kubelet rule>"
 *   unknown   "—"; the title says why it is not known (never a 0 or a "Running" made up)
 */
import type { ContainerStatus, Pod, PodStatus } from '@syncscope/core/api';
import {
  type Basis,
  type ContainerStateInfo,
  type Fact,
  type PodSnapshot,
  provenance,
  toContainerStatus,
} from './pod-state-core.ts';

const FACTS = new WeakMap<Pod, PodSnapshot>();

/** The reducer's snapshot of a replay's pod (undefined for a live pod). */
export function factsOf(pod: Pod): PodSnapshot | undefined {
  return FACTS.get(pod);
}

/** One printed fact: its text, its basis (for the style) and its provenance (for the title). */
export interface Cell {
  text: string;
  basis: Basis;
  title: string;
}

const UNKNOWN_TEXT = '—';

export function cell<T>(f: Fact<T>, text: (v: T) => string): Cell {
  return { text: f.basis === 'unknown' ? UNKNOWN_TEXT : text(f.value), basis: f.basis, title: provenance(f) };
}

/** The class a cell's basis is drawn with (styles.css). */
export function factClass(basis: Basis): string {
  return basis === 'stated' ? '' : `fact-${basis}`;
}

export interface RowCells {
  status: Cell;
  ready: Cell;
  restarts: Cell;
  /** RESTARTS for sorting: −1 when unknown, so unknown sorts below 0 */
  restartsN: number;
}

export function rowCells(s: PodSnapshot): RowCells {
  const restarts = cell(s.restarts, (n) => (s.restarts.atLeast ? `≥${n}` : String(n)));
  return {
    status: cell(s.statusWord, (w) => w),
    ready: cell(s.ready, (r) => `${r.ready}/${r.total}`),
    restarts,
    restartsN: s.restarts.basis === 'unknown' ? -1 : s.restarts.value,
  };
}

/** A container state in the pod page's words: "Running", "Waiting (CrashLoopBackOff)", "Terminated (Error 1)". */
export function stateWords(v: ContainerStateInfo | null): string {
  if (!v) return 'none';
  if (v.kind === 'running') return 'Running';
  if (v.kind === 'waiting') return `Waiting${v.reason ? ` (${v.reason})` : ''}`;
  if (v.exitCode === undefined) return `Terminated (${v.reason ? `${v.reason}, ` : ''}exit code unknown)`;
  return `Terminated (${v.reason ?? 'exit'} ${v.exitCode})`;
}

/**
 * The v1 status a replay's pod shows where the trace has no full status of its own (a kubelet log): the
 * reducer's phase and the containers whose state is known, so the views that read a status (and printPod)
 * see what the reducer worked out. A stated status with its container statuses is kept as it is.
 */
function statusOf(s: PodSnapshot, stated: PodStatus | undefined): PodStatus | undefined {
  if (stated?.containerStatuses && s.statusWord.basis === 'stated') return stated;
  const containerStatuses: ContainerStatus[] = [];
  const initContainerStatuses: ContainerStatus[] = [];
  for (const c of s.containers) {
    const cs = toContainerStatus(c);
    if (cs) (c.init ? initContainerStatuses : containerStatuses).push(cs);
  }
  if (s.phase.basis === 'unknown' && containerStatuses.length === 0 && !stated) return undefined;
  const phase = s.phase.basis === 'unknown' ? stated?.phase : (s.phase.value as PodStatus['phase']);
  return {
    ...(stated ?? {}),
    ...(phase ? { phase } : {}),
    containerStatuses,
    initContainerStatuses,
  } as PodStatus;
}

/** A replay's Pod built from its snapshot: spec containers by name (the trace has no spec), the status above. */
export function podWithFacts(pod: Pod, s: PodSnapshot, stated: PodStatus | undefined): Pod {
  const status = statusOf(s, stated);
  const names = (init: boolean) =>
    s.containers
      .filter((c) => Boolean(c.init) === init)
      .map((c) => ({ name: c.name.basis === 'unknown' ? c.key : c.name.value, image: '' }));
  const withStatus: Pod =
    status && status === stated
      ? pod
      : {
          ...pod,
          spec: { ...pod.spec, containers: names(false), initContainers: names(true) },
          ...(status ? { status } : {}),
        };
  FACTS.set(withStatus, s);
  return withStatus;
}
