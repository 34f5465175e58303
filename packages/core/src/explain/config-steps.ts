/**
 * A config op and a status read with the pod's state at them, for the sources that show a pod before the
 * runtime does (an observer watching the API, a kubelet log's SyncLoop ADD): what the op starts, not only
 * that it came. A pod the runtime shows nothing of yet is read as having no sandbox, and said so (a kubelet
 * restarted over running pods logs their ADD before any runtime line: there the sandbox may exist).
 *
 *   ADD      HandlePodAdditions, then the sync it starts at once: what computePodActions decides from the
 *            pod as the source shows it then (./reading.ts). A pod nothing of which ran yet has no sandbox:
 *            create sandbox attempt 0 and start its containers, in the words of the engine's own plan.
 *            An ADD of a pod the API is deleting already is a termination (UpdatePod: deletionTimestamp set).
 *   DELETE   the worker terminates the pod (SyncPodKill): SyncTerminatingPod stops every container within
 *            the grace period the DELETE gave (deletionGracePeriodSeconds), when the source has it; a pod
 *            nothing of which runs has no container to stop.
 *   status   a Failed status "Pod was rejected: …" is admission's refusal (HandlePodAdditions → canAdmitPod →
 *            rejectPod): the pod never reaches a worker, so it gets no sandbox; any other status is the
 *            status manager's write.
 * The rest is ./pod-rules.ts' configReading. Browser-safe: no Node imports.
 */
import type { TraceOf } from '../events/trace.ts';
import type { PodAt } from './backoff-steps.ts';
import { configReading, type PodFlags, RULE_KILL_DELETE } from './pod-rules.ts';
import { decide } from './reading.ts';
import type { Reading } from './types.ts';
import { goMs } from './words.ts';

export const RULE_CREATE_SANDBOX =
  'computePodActions: a pod with no sandbox gets a new one (attempt 0), then its containers are started';

export const RULE_REJECT =
  'HandlePodAdditions: a pod canAdmitPod refuses is rejected (rejectPod): Failed, never synced, no sandbox';

const NOTHING_RAN = 'no sandbox or container of the pod in the source at this step: assumed none exists yet';
const ADMITTED =
  'admission (canAdmitPod) is assumed to let the pod in: a refusal comes as a Failed status "Pod was rejected: …"';
/** The start of the message rejectPod gives a pod's status. */
const REJECTED = 'Pod was rejected: ';

/** Whether the source showed any container of the pod running or exited by now. */
function ran(at: PodAt): boolean {
  return at.containers().containers.some((c) => c.state.basis !== 'unknown');
}

/** ", grace 30s" as the step-through words a kill's grace period. */
const graceWords = (s: number | undefined) => (s === undefined ? '' : `, grace ${goMs(s * 1000)}`);

/**
 * The reading of a config op. `words`: the step is kept, so the decision in words is worked out (it is the
 * costly part); the verdict and the flags never depend on it.
 */
export function configStep(f: PodFlags, ev: TraceOf<'config.update'>, at: PodAt, words: boolean): Reading {
  const deleting = ev.op === 'DELETE' || (ev.op === 'ADD' && ev.deletionTimestamp !== undefined);
  const r = configReading(f, ev);
  if (deleting) {
    f.terminating = true;
    return { ...r, ...killReading(ev, words && !ran(at)) };
  }
  if (ev.op !== 'ADD' || !words) return r;
  const dec = decide(at.snapshot(), ev.time);
  const assumed = ran(at) ? dec.assumed : [NOTHING_RAN, ADMITTED, ...dec.assumed];
  return {
    ...r,
    model: [...r.model, ...dec.reasons.map((x) => `decides: ${x}`)],
    ...(dec.createSandbox ? { rule: RULE_CREATE_SANDBOX } : {}),
    assumed,
  };
}

/** A DELETE (or the ADD of a pod being deleted): the termination, with the grace the source gives. */
function killReading(ev: TraceOf<'config.update'>, nothingRuns: boolean): Partial<Reading> {
  const handler =
    ev.op === 'ADD'
      ? 'HandlePodAdditions: the pod is being deleted already → the worker terminates it (SyncPodKill)'
      : 'HandlePodUpdates (deletion): the worker terminates the pod (SyncPodKill)';
  if (ev.gracePeriodS === undefined) return { model: [handler] };
  const model = [
    `${handler}${graceWords(ev.gracePeriodS)}`,
    `SyncTerminatingPod: stop every container within ${goMs(ev.gracePeriodS * 1000)}, the grace the DELETE gave (deletionGracePeriodSeconds)`,
  ];
  if (nothingRuns)
    model.push('nothing of the pod runs yet: no container to stop, the pod is terminated at once');
  return {
    model,
    rule: RULE_KILL_DELETE,
    ...(nothingRuns ? { assumed: [NOTHING_RAN] } : {}),
  };
}

/** A status the source shows: admission's refusal, or the status manager's write. */
export function statusStep(ev: TraceOf<'status.update'>): Reading {
  const st = ev.status;
  if (st.phase === 'Failed' && st.message?.startsWith(REJECTED))
    return {
      verdict: 'agrees',
      model: [
        `canAdmitPod refused the pod (${st.reason ?? 'no reason'}): ${st.message.slice(REJECTED.length)}`,
        'rejectPod: the pod is Failed for good; no worker syncs it, so it gets no sandbox',
      ],
      rule: RULE_REJECT,
    };
  return { verdict: 'agrees', model: ['the status manager writes the pod status'], rule: 'status manager' };
}
