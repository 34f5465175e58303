/**
 * Pod state from a trace: the types of what the reducer (./reducer.ts) reports, each fact with where it came
 * from. A trace from the engine carries the kubelet's own status (`status.update`); a real kubelet's log
 * carries PLEG events, sync errors and back-off lines but seldom a status, never a spec. So every fact says:
 *
 *   stated    an event said it: `from` names the event (its seq, and the log line when it came from a log)
 *   inferred  worked out by a kubelet rule, named in words in `rule` (and the event that set it off)
 *   unknown   the trace does not say, and no rule gives it (`why`); never a default such as 0 or "Running"
 *
 * Browser-safe: no Node imports.
 */

/** The event a fact came from: its seq, and its line when the trace was read from a kubelet's log. */
export interface Source {
  seq: number;
  line?: number;
}

export type Fact<T> =
  | { basis: 'stated'; value: T; from: Source }
  | { basis: 'inferred'; value: T; rule: string; from?: Source }
  | { basis: 'unknown'; why: string };

export type Basis = Fact<unknown>['basis'];

/** One container state, as v1.ContainerState has it (times in ms since the epoch). */
export type ContainerStateInfo =
  | { kind: 'running'; startedAt?: number; containerID?: string }
  | { kind: 'waiting'; reason?: string; message?: string }
  | {
      kind: 'terminated';
      exitCode?: number;
      reason?: string;
      startedAt?: number;
      finishedAt?: number;
      containerID?: string;
    };

/** A container as the kubelet reports it in the pod's status. */
export interface ContainerSnapshot {
  /** The container's name; unknown when the trace gives only its ID (a log's PLEG lines). */
  name: Fact<string>;
  /** A key stable over the container's restarts (its name, or the first instance's ID). */
  key: string;
  /** The ID of its newest instance, when one is known. */
  containerID?: string;
  state: Fact<ContainerStateInfo>;
  /** The previous instance's termination (null: there was none). */
  lastState: Fact<Extract<ContainerStateInfo, { kind: 'terminated' }> | null>;
  /**
   * Restarts. `atLeast`: the trace starts after the pod did (no ADD in it), so earlier restarts are not in it
   * and the count is only a floor.
   */
  restartCount: Fact<number> & { atLeast?: boolean };
  ready: Fact<boolean>;
  /** Init container (from a stated status only; a log does not say). */
  init?: boolean;
}

/** One back-off window: the kubelet refuses to start `container` until `until`. */
export interface BackoffRungState {
  delayS: number;
  /** When the window started: the container's death (the kubelet counts from its finish time). */
  since: number;
  until: number;
  seq: number;
  line?: number;
  exitCode?: number;
}

/** The back-off window in force for a container, with the ladder of windows so far. */
export interface BackoffState {
  kind: 'container' | 'image';
  container: string;
  delayS: number;
  since: number;
  /** The next try is due at the first sync after this. */
  until: number;
  /** The event that opened (or last repeated) the window. */
  from: Source;
  /** The death that started it, when the trace holds it. */
  death?: { time: number; exitCode?: number; from: Source };
  exitCode: Fact<number>;
  /** One rung per window since the ladder last started over (a shorter delay than the one before). */
  ladder: BackoffRungState[];
  /** Windows before the last start-over. */
  resets: number;
  /** How the window ended, as far as the trace goes. */
  outcome:
    | { kind: 'restarted'; at: number; from: Source }
    | { kind: 'ends-inside'; at: number }
    | { kind: 'no-restart-seen'; at: number };
  /** Observe mode: worked out from exits, or confirmed by the kubelet's log. */
  basis?: 'inferred' | 'confirmed';
}

/** The pod worker's states (pod_workers.go), as worker.state events name them. */
export type WorkerStateName = 'SyncPod' | 'TerminatingPod' | 'TerminatedPod' | 'Finished' | 'Forgotten';

/** A graceful termination: the first kill of a terminating pod and the grace period it sent. */
export interface GraceState {
  gracePeriodS: number;
  /** the kill's time */
  start: number;
  /** start + the grace period: after it the runtime kills what still runs */
  deadline: number;
  from: Source;
}

/** The newest failed sync of a pod (a sync.result with an error), with the run of failures it ends. */
export interface SyncErrorState {
  at: number;
  /** the sync's error, or its first failed action's `<action> <target>: <error>` */
  error: string;
  /** syncs that failed in a row up to this one */
  count: number;
  from: Source;
}

/** One probe's latest result for one container, and the failures in a row that led to it. */
export interface ProbeState {
  container: string;
  probe: string;
  result: string;
  /** when the probe first gave this result in a row */
  since: number;
  /** results equal to this one in a row */
  count: number;
  from: Source;
}

/** A pod as the kubelet would report it after the events folded so far. */
export interface PodSnapshot {
  uid: string;
  /** namespace/name */
  pod: string;
  node?: string;
  phase: Fact<string>;
  /** kubectl's STATUS column (printPod's rules) over the facts below. */
  statusWord: Fact<string>;
  /** kubectl's READY column: ready containers of all, when both are known. */
  ready: Fact<{ ready: number; total: number }>;
  /** kubectl's RESTARTS: the sum over the containers. */
  restarts: Fact<number> & { atLeast?: boolean };
  /** Regular and init containers, then those the trace names by ID only. */
  containers: ContainerSnapshot[];
  /** The window in force, or the latest one, per container; newest first. */
  backoffs: BackoffState[];
  /** DELETE seen (and not undone by an ADD): the pod is terminating. */
  deletedAt?: number;
  removed: boolean;
  /** The pod worker's state: stated (worker.state), inferred from a termination's lines, or unknown. */
  worker: Fact<WorkerStateName> & { since?: number };
  /** The graceful termination's deadline, when a kill of the terminating pod gave its grace period. */
  grace?: GraceState;
  /** The times of the pod's first and newest events (a log excerpt may begin long after the pod did). */
  firstSeen: number;
  lastSeen: number;
  /** The newest failed sync, when no sync succeeded after it. */
  syncError?: SyncErrorState;
  /** Each container's probes' latest results. */
  probes: ProbeState[];
  /** The time of the last event folded (of any pod): the trace's "now". */
  asOf: number;
}

/** A fact's value, or undefined when it is unknown. */
export function factValue<T>(f: Fact<T>): T | undefined {
  return f.basis === 'unknown' ? undefined : f.value;
}

/** A fact's provenance in words, for a tooltip: "stated (line 42)", "inferred: <rule>", "unknown: <why>". */
export function provenance(f: Fact<unknown>): string {
  if (f.basis === 'unknown') return `unknown: ${f.why}`;
  const at = f.from ? (f.from.line !== undefined ? ` (line ${f.from.line})` : ` (event ${f.from.seq})`) : '';
  return f.basis === 'stated' ? `stated${at}` : `inferred: ${f.rule}${at}`;
}
