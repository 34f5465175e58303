/**
 * A container's facts as the kubelet would report them, read from its Slot (./containers.ts): the stated
 * status when nothing newer happened since, else what the runtime's events and the reason cache imply, by
 * convertToAPIContainerStatuses' rules (newest instance → state, the one before → lastState, a reason-cache
 * error → Waiting with the terminated state moved to lastState).
 */
import type { ContainerState } from '../api/v1.ts';
import type { Instance, Slot, StatusDerived } from './containers.ts';
import { exitReason, RULES } from './rules.ts';
import type { ContainerSnapshot, ContainerStateInfo, Fact, Source } from './types.ts';

type Terminated = Extract<ContainerStateInfo, { kind: 'terminated' }>;

const ms = (t: string | null | undefined): number | undefined => {
  const v = t ? Date.parse(t) : Number.NaN;
  return Number.isNaN(v) ? undefined : v;
};

function fromV1(s: ContainerState): ContainerStateInfo | null {
  if (s.running) {
    const at = ms(s.running.startedAt);
    return at === undefined ? { kind: 'running' } : { kind: 'running', startedAt: at };
  }
  if (s.terminated) {
    const t = s.terminated;
    const v: Terminated = { kind: 'terminated', exitCode: t.exitCode };
    if (t.reason) v.reason = t.reason;
    const started = ms(t.startedAt);
    const finished = ms(t.finishedAt);
    if (started !== undefined) v.startedAt = started;
    if (finished !== undefined) v.finishedAt = finished;
    if (t.containerID) v.containerID = t.containerID;
    return v;
  }
  if (s.waiting) {
    const v: ContainerStateInfo = { kind: 'waiting' };
    if (s.waiting.reason) v.reason = s.waiting.reason;
    if (s.waiting.message) v.message = s.waiting.message;
    return v;
  }
  return null;
}

/** An instance's termination (it died), by the runtime's reasons. */
function terminationOf(i: Instance): Terminated {
  const d = i.died as NonNullable<Instance['died']>;
  const v: Terminated = { kind: 'terminated', finishedAt: d.time, containerID: i.id };
  if (d.exitCode !== undefined) v.exitCode = d.exitCode;
  const reason = exitReason(d.exitCode);
  if (reason) v.reason = reason;
  if (i.started && !i.started.inferred) v.startedAt = i.started.time;
  return v;
}

const inferred = <T>(value: T, rule: string, from?: Source): Fact<T> =>
  from ? { basis: 'inferred', value, rule, from } : { basis: 'inferred', value, rule };

function stateOf(s: Slot): Fact<ContainerStateInfo> {
  const cur = s.cur;
  const running = cur?.started && !cur.died;
  if (s.reason && !running) {
    const v: ContainerStateInfo = { kind: 'waiting', reason: s.reason.reason };
    if (s.reason.message) v.message = s.reason.message;
    return inferred(v, s.reason.rule, s.reason.from);
  }
  if (cur?.started && running) {
    const v: ContainerStateInfo = { kind: 'running', containerID: cur.id };
    if (!cur.started.inferred) v.startedAt = cur.started.time;
    return inferred(v, RULES.running, cur.started.from);
  }
  if (cur?.died) return inferred(terminationOf(cur), RULES.terminated, cur.died.from);
  const st = s.stated && fromV1(s.stated.cs.state);
  if (st) return { basis: 'stated', value: st, from: (s.stated as NonNullable<Slot['stated']>).from };
  return { basis: 'unknown', why: 'the trace shows no run of this container and no status for it' };
}

function lastStateOf(
  s: Slot,
  state: ContainerStateInfo | undefined,
  added: boolean,
): Fact<Terminated | null> {
  const cur = s.cur;
  if (state?.kind === 'waiting' && cur?.died)
    return inferred(terminationOf(cur), RULES.lastState, cur.died.from);
  if (s.prev?.died) return inferred(terminationOf(s.prev), RULES.lastState, s.prev.died.from);
  if (s.stated) {
    const cs = s.stated.cs;
    const v = fromV1(s.startsSinceStated === 0 ? cs.lastState : cs.state);
    if (s.startsSinceStated <= 1 && v?.kind === 'terminated')
      return { basis: 'stated', value: v, from: s.stated.from };
  }
  if (s.starts === 1 && added) return inferred(null, 'its first run: no earlier instance');
  return { basis: 'unknown', why: "the trace does not show the container's previous run" };
}

function restartsOf(s: Slot, added: boolean): ContainerSnapshot['restartCount'] {
  if (s.stated) {
    const base = s.stated.cs.restartCount;
    if (s.startsSinceStated === 0) return { basis: 'stated', value: base, from: s.stated.from };
    return inferred(base + s.startsSinceStated, RULES.restartsSinceStatus, s.cur?.started?.from);
  }
  if (s.starts === 0 && !added)
    return {
      basis: 'unknown',
      why: 'no start of this container in the trace, which begins after the pod did',
    };
  const f = inferred(
    Math.max(0, s.starts - 1),
    s.paired ? RULES.restartPair : RULES.restartCount,
    s.cur?.started?.from,
  );
  return added ? f : { ...f, atLeast: true };
}

function readyOf(s: Slot, state: Fact<ContainerStateInfo>): Fact<boolean> {
  if (state.basis === 'stated' && s.stated)
    return { basis: 'stated', value: s.stated.cs.ready, from: s.stated.from };
  if (state.basis === 'unknown') return { basis: 'unknown', why: 'the container state is not known' };
  if (state.value.kind !== 'running') return inferred(false, RULES.notReady, state.from);
  const started = s.cur?.started?.from.seq ?? 0;
  if (s.readiness && s.readiness.from.seq > started)
    return inferred(s.readiness.ready, RULES.readiness, s.readiness.from);
  return {
    basis: 'unknown',
    why: 'no readiness result since it started (a log does not show whether the container has a readiness probe)',
  };
}

/** A fact of a stated status: as stated, or as the status's source worked it out (`by`, an observer's). */
function worked<T>(value: T, from: Source, by: StatusDerived['state']): Fact<T> {
  if (!by) return { basis: 'stated', value, from };
  if (by.basis === 'unknown') return { basis: 'unknown', why: by.why };
  return { basis: 'inferred', value, rule: by.why, from };
}

export function containerSnapshot(s: Slot, added: boolean): ContainerSnapshot {
  const stated = s.stated && s.stated.from.seq >= s.changed ? s.stated : undefined;
  if (stated) {
    const cs = stated.cs;
    const from = stated.from;
    const st = fromV1(cs.state);
    const last = fromV1(cs.lastState);
    const by = stated.derived;
    return {
      name: { basis: 'stated', value: cs.name, from },
      key: s.key,
      ...(cs.containerID ? { containerID: cs.containerID } : {}),
      state: st ? worked(st, from, by?.state) : { basis: 'unknown', why: 'the status gives no state' },
      lastState: { basis: 'stated', value: last?.kind === 'terminated' ? last : null, from },
      restartCount: { basis: 'stated', value: cs.restartCount, from },
      ready: worked(cs.ready, from, by?.ready),
      init: stated.init,
    };
  }
  const state = stateOf(s);
  // a name the trace gave with an event of this container is stated; one a log's ID-only run was put under is not
  const name: Fact<string> = s.name
    ? s.name.stated || !(s.linked || s.paired)
      ? { basis: 'stated', value: s.name.value, from: s.name.from }
      : inferred(s.name.value, RULES.backoffName, s.name.from)
    : { basis: 'unknown', why: 'the log gives only the container ID (it may be the pod sandbox)' };
  return {
    name,
    key: s.key,
    ...(s.cur ? { containerID: s.cur.id } : {}),
    state,
    lastState: lastStateOf(s, state.basis === 'unknown' ? undefined : state.value, added),
    restartCount: restartsOf(s, added),
    ready: readyOf(s, state),
    ...(s.stated ? { init: s.stated.init } : {}),
  };
}
