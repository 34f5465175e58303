/**
 * A pod's snapshot from its folded facts: the containers (./container-snapshot.ts), then the pod's phase
 * (getPhase's rules where no status says it), kubectl's STATUS, READY and RESTARTS (printPod over a v1 status
 * made of the known facts, so the words are kubectl's), and the back-off windows.
 */
import { printPod } from '../api/kubectl.ts';
import { type ContainerStatus, type Pod, type PodStatus, rfc3339 } from '../api/v1.ts';
import { containerSnapshot } from './container-snapshot.ts';
import type { PodFold } from './fold.ts';
import { RULES } from './rules.ts';
import type { ContainerSnapshot, ContainerStateInfo, Fact, PodSnapshot } from './types.ts';

const iso = (t: number | undefined) => (t === undefined ? undefined : rfc3339(t));

function toV1State(v: ContainerStateInfo | null | undefined): ContainerStatus['state'] {
  if (!v) return {};
  if (v.kind === 'running')
    return { running: { ...(v.startedAt !== undefined ? { startedAt: iso(v.startedAt) } : {}) } };
  if (v.kind === 'waiting')
    return {
      waiting: { ...(v.reason ? { reason: v.reason } : {}), ...(v.message ? { message: v.message } : {}) },
    };
  return {
    terminated: {
      exitCode: v.exitCode ?? -1,
      // an exit the trace gives no code for: kubectl would print ExitCode:<n>; we say what we know
      reason: v.reason ?? 'Terminated',
      ...(v.startedAt !== undefined ? { startedAt: iso(v.startedAt) } : {}),
      ...(v.finishedAt !== undefined ? { finishedAt: iso(v.finishedAt) } : {}),
    },
  };
}

/** The v1 status of one container, from its known facts (undefined when its state is not known). */
export function toContainerStatus(c: ContainerSnapshot): ContainerStatus | undefined {
  if (c.state.basis === 'unknown') return undefined;
  return {
    name: c.name.basis === 'unknown' ? c.key : c.name.value,
    image: '',
    imageID: '',
    state: toV1State(c.state.value),
    lastState: toV1State(c.lastState.basis === 'unknown' ? null : c.lastState.value),
    ready: c.ready.basis === 'unknown' ? false : c.ready.value,
    restartCount: c.restartCount.basis === 'unknown' ? 0 : c.restartCount.value,
    ...(c.containerID ? { containerID: c.containerID } : {}),
  };
}

function phaseOf(p: PodFold, containers: ContainerSnapshot[]): Fact<string> {
  const newest = Math.max(-1, ...[...p.containers.slots.values()].map((s) => s.changed));
  if (p.status?.phase && p.status.from.seq >= newest) return statusPhase(p.status, p.status.phase);
  const terminal = terminalPhase(p, containers);
  if (terminal) return terminal;
  const running = containers.find((c) => c.state.basis !== 'unknown' && c.state.value.kind === 'running');
  if (running?.state.basis === 'stated' || running?.state.basis === 'inferred') {
    const from = running.state.from;
    return from
      ? { basis: 'inferred', value: 'Running', rule: RULES.phaseRunning, from }
      : { basis: 'inferred', value: 'Running', rule: RULES.phaseRunning };
  }
  const restarting = containers.some(
    (c) =>
      (c.restartCount.basis !== 'unknown' && c.restartCount.value > 0) ||
      (c.state.basis !== 'unknown' &&
        c.state.value.kind === 'waiting' &&
        c.state.value.reason === 'CrashLoopBackOff'),
  );
  if (restarting) return { basis: 'inferred', value: 'Running', rule: RULES.phaseRunning };
  if (p.status?.phase) return statusPhase(p.status, p.status.phase);
  if (p.added && !containers.some((c) => c.state.basis !== 'unknown' && c.state.value.kind === 'terminated'))
    return { basis: 'inferred', value: 'Pending', rule: RULES.phasePending, from: p.added };
  return {
    basis: 'unknown',
    why: 'the trace gives no phase and no rule decides it from the containers it shows',
  };
}

/** The phase a status gave: stated, or as an observer worked it out. */
function statusPhase(st: NonNullable<PodFold['status']>, phase: string): Fact<string> {
  if (!st.phaseBy) return { basis: 'stated', value: phase, from: st.from };
  if (st.phaseBy.basis === 'unknown') return { basis: 'unknown', why: st.phaseBy.why };
  return { basis: 'inferred', value: phase, rule: st.phaseBy.why, from: st.from };
}

const TERMINAL_WORKER = new Set(['TerminatedPod', 'Finished', 'Forgotten']);

/** A pod whose worker finished terminating it, every container stopped: Succeeded or Failed (getPhase). */
function terminalPhase(p: PodFold, containers: ContainerSnapshot[]): Fact<string> | undefined {
  if (!p.worker || !TERMINAL_WORKER.has(p.worker.state) || containers.length === 0) return undefined;
  let failed = false;
  for (const c of containers) {
    if (c.state.basis === 'unknown' || c.state.value.kind !== 'terminated') return undefined;
    const code = c.state.value.exitCode;
    if (code === undefined) return undefined;
    if (code !== 0) failed = true;
  }
  return {
    basis: 'inferred',
    value: failed ? 'Failed' : 'Succeeded',
    rule: RULES.phaseTerminal,
    from: p.worker.from,
  };
}

/** The pod's STATUS word and where it came from: the deciding container's state, the phase, or a DELETE. */
function wordOf(
  p: PodFold,
  row: { status: string },
  phase: Fact<string>,
  cs: ContainerSnapshot[],
): Fact<string> {
  const word = row.status;
  if (word === 'Pending' && phase.basis === 'inferred' && cs.every((c) => c.state.basis === 'unknown'))
    return {
      basis: 'inferred',
      value: 'ContainerCreating',
      rule: RULES.creating,
      ...(p.added ? { from: p.added } : {}),
    };
  if (!word) return { basis: 'unknown', why: 'the trace says neither the phase nor any container state' };
  if (word === 'Terminating' && p.deleted)
    return { basis: 'inferred', value: word, rule: RULES.terminating, from: p.deleted.from };
  const allStated = phase.basis === 'stated' && cs.every((c) => c.state.basis === 'stated');
  const decider = cs.find((c) => {
    if (c.state.basis === 'unknown') return false;
    const v = c.state.value;
    return (
      (v.kind === 'waiting' || v.kind === 'terminated') &&
      (v.reason === word || word.endsWith(`:${v.reason}`))
    );
  });
  const basis = decider?.state ?? phase;
  if (allStated && basis.basis === 'stated') return { basis: 'stated', value: word, from: basis.from };
  const rule = basis.basis === 'inferred' ? `${RULES.statusWord}: ${basis.rule}` : RULES.statusWord;
  const from = basis.basis === 'unknown' ? undefined : basis.from;
  return from ? { basis: 'inferred', value: word, rule, from } : { basis: 'inferred', value: word, rule };
}

export function podSnapshot(p: PodFold, asOf: number): PodSnapshot {
  const added = p.added !== undefined;
  const containers = [...p.containers.slots.values()].map((s) => containerSnapshot(s, added));
  containers.sort((a, b) => Number(b.init ?? false) - Number(a.init ?? false));
  const phase = phaseOf(p, containers);
  const slash = p.pod.indexOf('/');
  // an unknown phase is printed as no word at all (printPod starts from the phase)
  const status: PodStatus = { phase: (phase.basis !== 'unknown' ? phase.value : '') as PodStatus['phase'] };
  if (phase.basis === 'stated' && p.status?.reason) status.reason = p.status.reason;
  const regular = containers.filter((c) => !c.init);
  const init = containers.filter((c) => c.init);
  status.containerStatuses = regular.flatMap((c) => toContainerStatus(c) ?? []);
  status.initContainerStatuses = init.flatMap((c) => toContainerStatus(c) ?? []);
  const nameOf = (c: ContainerSnapshot) => ({
    name: c.name.basis === 'unknown' ? c.key : c.name.value,
    image: '',
  });
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: slash > 0 ? p.pod.slice(slash + 1) : p.pod,
      namespace: slash > 0 ? p.pod.slice(0, slash) : 'default',
      uid: p.uid,
      ...(p.deleted ? { deletionTimestamp: rfc3339(p.deleted.at) } : {}),
    },
    spec: { containers: regular.map(nameOf), initContainers: init.map(nameOf) },
    status,
  };
  const row = printPod(pod, asOf);
  const allStated = containers.length > 0 && containers.every((c) => c.ready.basis === 'stated');
  const ready: PodSnapshot['ready'] = allStated
    ? {
        basis: 'stated',
        value: { ready: row.readyContainers, total: row.totalContainers },
        from: p.status?.from ?? { seq: p.seq },
      }
    : {
        basis: 'unknown',
        why: "the trace does not show the pod's spec: how many containers it has, and whether each is ready",
      };
  const counts = regular.map((c) => c.restartCount);
  const known = counts.filter((f) => f.basis !== 'unknown');
  let restarts: PodSnapshot['restarts'];
  if (known.length === 0 && p.added && !containers.some((c) => c.state.basis !== 'unknown'))
    restarts = { basis: 'inferred', value: 0, rule: RULES.noStartYet, from: p.added };
  else if (known.length === 0)
    restarts = { basis: 'unknown', why: 'no container of the pod shows a start or a status in the trace' };
  else {
    let sum = 0;
    for (const f of known) sum += (f as { value: number }).value;
    const atLeast = known.length < counts.length || counts.some((f) => f.atLeast);
    const stated = known.length === counts.length && counts.every((f) => f.basis === 'stated');
    restarts = stated
      ? { basis: 'stated', value: sum, from: (counts[0] as { from: { seq: number } }).from }
      : {
          basis: 'inferred',
          value: sum,
          rule: known.length === 1 && known[0]?.basis === 'inferred' ? known[0].rule : RULES.restartsSum,
          ...(atLeast ? { atLeast } : {}),
        };
  }
  return {
    uid: p.uid,
    pod: p.pod,
    ...(p.node !== undefined ? { node: p.node } : {}),
    phase,
    statusWord: wordOf(p, row, phase, containers),
    ready,
    restarts,
    containers,
    backoffs: p.backoffs.list(asOf),
    ...(p.deleted ? { deletedAt: p.deleted.at } : {}),
    removed: p.removed,
    worker: workerOf(p),
    ...(p.grace ? { grace: p.grace } : {}),
    firstSeen: p.firstSeen,
    lastSeen: p.lastSeen,
    ...(p.syncError ? { syncError: { ...p.syncError } } : {}),
    probes: [...p.probes.values()].map((x) => ({ ...x })),
    asOf,
  };
}

/** The worker's state: the newest worker.state, or what the pod's lines imply, or unknown. */
function workerOf(p: PodFold): PodSnapshot['worker'] {
  const w = p.worker;
  if (!w)
    return {
      basis: 'unknown',
      why: "the trace shows neither the pod's ADD nor its worker (a kubelet writes the worker's lines at -v=4)",
    };
  return w.rule !== undefined
    ? { basis: 'inferred', value: w.state, rule: w.rule, from: w.from, since: w.since }
    : { basis: 'stated', value: w.state, from: w.from, since: w.since };
}
