/**
 * What each trace event does to one pod's folded facts (./fold.ts), for PodStateReducer (./reducer.ts):
 *   config.update   ADD (a pod REMOVEd and ADDed again starts over), DELETE (terminating), REMOVE
 *   worker.*        a kill or a terminating worker: deaths from now on restart nothing; worker.state is
 *                   the worker's state (stated), else a termination's lines imply it (inferred): the kill of
 *                   a deleted pod → TerminatingPod (and the grace deadline), every container dead →
 *                   TerminatedPod, REMOVE then → Finished
 *   pleg.event      ContainerStarted / ContainerDied (with the exit code when the trace has it)
 *   sync.result     StartContainer errors fill the reason cache (CrashLoopBackOff, ErrImagePull, …); a
 *                   StartContainer that succeeded clears it
 *   backoff         the window in force, and the name of the container whose death started it
 *   runtime.call    a StopContainer of one named container: the next death in the pod is its own
 *   probe.result    readiness
 *   status.update   the kubelet's own status: stated facts, newer than anything inferred before it
 * Browser-safe: no Node imports.
 */
import type { TraceEvent, TraceOf } from '../events/trace.ts';
import { PodContainers, type StatusDerived } from './containers.ts';
import type { PodFold } from './fold.ts';
import { RULES } from './rules.ts';
import { noteProbe, noteSync } from './runs.ts';
import type { Source } from './types.ts';

/** Folds one event of the pod into its facts (the rules in ./rules.ts); `from` is where the event stands. */
export function foldEvent(p: PodFold, ev: TraceEvent, from: Source): void {
  const c = p.containers;
  switch (ev.type) {
    case 'config.update':
      if (ev.op === 'ADD') {
        if (p.removed) {
          // a static pod REMOVEd and ADDed again with its UID: a new life, new containers; the back-off
          // entries stay (the kubelet keys them by pod name, UID and container, and keeps them across)
          p.containers = new PodContainers();
          p.status = undefined;
          p.firstPleg = undefined;
        }
        p.added ??= from;
        if (p.removed || !p.worker) {
          p.worker = { state: 'SyncPod', since: ev.time, from, rule: RULES.workerSyncing };
          p.grace = undefined;
        }
        p.removed = false;
        p.deleted = undefined;
        p.containers.terminating = false;
      } else if (ev.op === 'DELETE') {
        p.deleted ??= { at: ev.time, from };
        c.terminating = true;
      } else if (ev.op === 'REMOVE') {
        p.removed = true;
        c.terminating = true;
        if (p.worker?.state === 'TerminatedPod')
          p.worker = { state: 'Finished', since: ev.time, from, rule: RULES.workerFinished };
      }
      return;
    case 'worker.update':
      if (ev.updateType === 'SyncPodKill') c.terminating = true;
      return;
    case 'worker.state':
      if (ev.to !== 'SyncPod') c.terminating = true;
      p.worker = { state: ev.to, since: ev.time, from };
      return;
    case 'pleg.event':
      foldPleg(p, ev, from);
      if (
        ev.event === 'ContainerDied' &&
        p.worker?.state === 'TerminatingPod' &&
        p.worker.rule !== undefined &&
        !c.anyRunning()
      )
        p.worker = { state: 'TerminatedPod', since: ev.time, from, rule: RULES.workerTerminated };
      return;
    case 'sync.result':
      noteSync(p, ev, from);
      for (const a of ev.actions) {
        if (a.action !== 'StartContainer') continue;
        const slot = c.named(a.target, from, false);
        slot.changed = ev.seq;
        if (a.error) {
          const rule = a.error === 'CrashLoopBackOff' ? RULES.crashLoop : RULES.syncError;
          slot.reason = { reason: a.error, from, rule, ...(a.message ? { message: a.message } : {}) };
        } else {
          slot.reason = undefined;
          p.backoffs.imageDone(a.target, ev.time, from);
        }
      }
      return;
    case 'backoff':
      foldBackoff(p, ev, from);
      return;
    case 'runtime.call':
      if (ev.method === 'StopContainer' && ev.container && !ev.error) c.killed(ev.container, from);
      if (ev.method === 'StopContainer' && c.terminating) foldTerminating(p, ev, from);
      return;
    case 'probe.result': {
      noteProbe(p, ev, from);
      if (ev.probe === 'Readiness' && ev.container && ev.result !== 'Unknown')
        c.named(ev.container, from, false).readiness = { ready: ev.result === 'Success', from };
      return;
    }
    case 'status.update': {
      const st = ev.status;
      const phaseBy = ev.derived?.find((d) => d.field === 'phase' && d.container === undefined);
      p.status = {
        from,
        ...(st.phase ? { phase: st.phase } : {}),
        ...(st.reason ? { reason: st.reason } : {}),
        ...(phaseBy ? { phaseBy: { basis: phaseBy.basis, why: phaseBy.why } } : {}),
      };
      for (const cs of st.initContainerStatuses ?? []) c.stated(cs, true, from, derivedOf(ev, cs.name));
      for (const cs of st.containerStatuses ?? []) c.stated(cs, false, from, derivedOf(ev, cs.name));
      return;
    }
    default:
      return;
  }
}

/** What an observer's status worked out rather than read about container `name` (undefined: all stated). */
function derivedOf(ev: TraceOf<'status.update'>, name: string): StatusDerived | undefined {
  let out: StatusDerived | undefined;
  for (const d of ev.derived ?? []) {
    if (d.container !== name || d.field === 'phase') continue;
    out ??= {};
    out[d.field] = { basis: d.basis, why: d.why };
  }
  return out;
}

/** A kill of a terminating pod: its worker is TerminatingPod, and the first such kill dates the deadline. */
function foldTerminating(p: PodFold, ev: TraceOf<'runtime.call'>, from: Source): void {
  if (!p.worker || p.worker.state === 'SyncPod')
    p.worker = { state: 'TerminatingPod', since: ev.time, from, rule: RULES.workerTerminating };
  if (!p.grace && ev.gracePeriodS !== undefined)
    p.grace = {
      gracePeriodS: ev.gracePeriodS,
      start: ev.time,
      deadline: ev.time + ev.gracePeriodS * 1000,
      from,
    };
}

/**
 * How long after a pod's first PLEG event its first relist's events may still be logged: the sync loop logs
 * each event as it takes it, so one relist's lines spread over a little time; the next relist is a period
 * (1 s) later.
 */
const ONE_RELIST_MS = 500;

function foldPleg(p: PodFold, ev: TraceOf<'pleg.event'>, from: Source): void {
  // the engine and the observer name every container in their PLEG events: an unnamed one is the sandbox
  if (ev.containerName === undefined && !ev.origin) return;
  const c = p.containers;
  if (p.added && p.firstPleg === undefined) p.firstPleg = ev.time;
  const firstRelist = p.firstPleg !== undefined && ev.time - p.firstPleg < ONE_RELIST_MS;
  if (ev.event === 'ContainerStarted') {
    // RULES.firstRelist: in a log (no names), no start of the pod's first relist pairs with a death
    const mayRestart = ev.containerName !== undefined || !firstRelist;
    const inst = c.started(ev.containerID, ev.time, from, ev.inferred === true, ev.containerName, mayRestart);
    const name = inst.slot.name?.value;
    if (name !== undefined) p.backoffs.started(name, ev.time, from);
  } else if (ev.event === 'ContainerDied') {
    c.died(ev.containerID, ev.time, from, ev.exitCode, ev.containerName);
  }
}

function foldBackoff(p: PodFold, ev: TraceOf<'backoff'>, from: Source): void {
  const c = p.containers;
  if (ev.kind === 'image') {
    const slot = c.named(ev.container, from, false);
    if (slot.reason?.reason !== 'ErrImagePull') {
      slot.reason = { reason: 'ImagePullBackOff', from, rule: RULES.syncError };
      slot.changed = ev.seq;
    }
    p.backoffs.add(ev, undefined);
    return;
  }
  const slot = c.backoff(ev.container, from);
  if (slot.cur?.died || !slot.cur) {
    if (slot.reason?.reason !== 'CrashLoopBackOff') {
      slot.reason = { reason: 'CrashLoopBackOff', from, rule: RULES.crashLoop };
      slot.changed = ev.seq;
    }
  }
  p.backoffs.add(ev, slot.cur);
}
