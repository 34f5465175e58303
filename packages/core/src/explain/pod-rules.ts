/**
 * The rules for a pod's config ops and its kills, over a few facts the pod explainer keeps (PodFlags): the
 * config source's ADD / UPDATE / DELETE / REMOVE (HandlePodAdditions, …), and who asked for a kill — the
 * pod's termination (SyncTerminatingPod), a failed liveness or startup probe, a changed spec
 * (computePodActions) — or nobody. Browser-safe: no Node imports.
 */
import type { TraceOf } from '../events/trace.ts';
import type { NextSync, Reading } from './types.ts';
import { goMs } from './words.ts';

export const RULE_KILL_DELETE = 'SyncTerminatingPod: every container is stopped within the grace period';
const RULE_KILL_PROBE =
  'computePodActions: a container whose liveness or startup probe failed is killed and restarted';

/** What the rules read of a pod's past. */
export interface PodFlags {
  /** the pod's ADD is in the trace */
  added: boolean;
  /** a DELETE or REMOVE, or the worker past SyncPod */
  terminating: boolean;
  /** an UPDATE came (its spec change is not in a log) */
  updated: boolean;
  /** an event that wakes the worker came since the last sync */
  woke: boolean;
  /** a kill a rule asked for: by container name, '*' for a pod-wide probe line that names no container */
  killAsked: Map<string, string>;
  /** a kill a rule asked for went out: the next death in the pod is that kill's */
  killPending: boolean;
}

export function podFlags(): PodFlags {
  return {
    added: false,
    terminating: false,
    updated: false,
    woke: true,
    killAsked: new Map(),
    killPending: false,
  };
}

/** A config op: what the kubelet's handler does with it. */
export function configReading(f: PodFlags, ev: TraceOf<'config.update'>): Reading {
  f.woke = true;
  const at: NextSync = { from: ev.time, to: ev.time, why: 'config' };
  switch (ev.op) {
    case 'ADD':
      f.added = true;
      f.terminating = false;
      return {
        verdict: 'agrees',
        model: ['HandlePodAdditions: the worker syncs the new pod at once (SyncPodCreate)'],
        rule: 'HandlePodAdditions',
        nextSync: at,
      };
    case 'UPDATE':
      f.updated = true;
      return {
        verdict: 'agrees',
        model: ['HandlePodUpdates: the worker syncs it at once (SyncPodUpdate)'],
        rule: 'HandlePodUpdates',
        nextSync: at,
      };
    case 'DELETE':
    case 'REMOVE':
      f.terminating = true;
      return {
        verdict: 'agrees',
        model: [
          `${ev.op === 'DELETE' ? 'HandlePodUpdates (deletion)' : 'HandlePodRemoves'}: the worker terminates the pod (SyncPodKill)`,
        ],
        rule: 'pod worker termination',
        nextSync: at,
      };
    default:
      return {
        verdict: 'agrees',
        model: ['HandlePodReconcile: status only, no sync'],
        rule: 'HandlePodReconcile',
      };
  }
}

/** A runtime call of the pod's sync; for a StopContainer, the rule that asked for it. */
export function callReading(f: PodFlags, ev: TraceOf<'runtime.call'>): Reading {
  if (ev.method !== 'StopContainer')
    return {
      verdict: 'agrees',
      model: [`the sync's runtime call ${ev.method}`],
      rule: 'kuberuntime SyncPod',
    };
  if (f.terminating)
    return {
      verdict: 'agrees',
      model: [
        `stop ${ev.container ?? 'the container'}${ev.gracePeriodS !== undefined ? ` within ${goMs(ev.gracePeriodS * 1000)}` : ''}`,
      ],
      rule: RULE_KILL_DELETE,
    };
  const name = ev.container ?? '';
  const why = f.killAsked.get(name) ?? f.killAsked.get('*');
  if (why) {
    f.killAsked.delete(name);
    f.killAsked.delete('*');
    f.killPending = true;
    return {
      verdict: 'agrees',
      model: [`Container ${name} ${why} → kill and restart`],
      rule: RULE_KILL_PROBE,
    };
  }
  if (f.updated) {
    f.killPending = true;
    return {
      verdict: 'agrees',
      model: [`Container ${name} definition changed → kill and restart`],
      rule: 'computePodActions: a running container whose hash changed is restarted',
      assumed: [
        'an UPDATE came before the kill: the spec change is assumed to touch this container (the source has no spec)',
      ],
    };
  }
  return {
    verdict: 'differs',
    model: ['no rule asks for this kill: the pod is not terminating, no probe failed, no spec changed'],
    rule: 'computePodActions',
    difference: {
      kind: 'unrequested-kill',
      expected: `${name || 'the container'} left running`,
      seen: `StopContainer ${name}`,
    },
  };
}
