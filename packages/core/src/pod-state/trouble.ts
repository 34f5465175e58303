/**
 * Pods in trouble: what in a pod's state (./types.ts) a person debugging a node looks for first, in the
 * kubelet's words. A pure reading of one PodSnapshot, so the same pod is in the same trouble whether its state
 * came from the engine, a log or an observed node:
 *
 *   back-off     a container back-off the trace leaves in force (CrashLoopBackOff, or Error between a death
 *                and its back-off line), or the STATUS word CrashLoopBackOff
 *   image        ErrImagePull / ImagePullBackOff: a container waits on its image
 *   sync         the pod's newest sync failed for another reason (and none succeeded after it)
 *   probe        a container's newest liveness, readiness or startup result is a failure
 *   terminating  deleted and not removed past its grace deadline (the grace period its kill sent, else the
 *                API's default terminationGracePeriodSeconds of 30 s counted from the DELETE)
 * Browser-safe.
 */
import type { PodSnapshot, Source } from './types.ts';

export type TroubleKind = 'back-off' | 'image' | 'sync' | 'probe' | 'terminating';

export interface Trouble {
  kind: TroubleKind;
  /** what is wrong, in the kubelet's words: "CrashLoopBackOff: app, back-off 40s" */
  words: string;
  /** when it started (the window, the first failure in a row, the DELETE) */
  since: number;
  /** the event that says it */
  from?: Source;
}

/** v1.Pod's default terminationGracePeriodSeconds, the grace a DELETE gives when the pod names none. */
export const DEFAULT_GRACE_S = 30;

const IMAGE_WORDS = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName']);
/** sync errors that are a back-off or an image wait, told as those (every sync of such a pod fails with one) */
const WAITING_ERRORS = /CrashLoopBackOff|ImagePullBackOff|ErrImagePull|ErrImageNeverPull|InvalidImageName/;

function seconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}

export function podTrouble(s: PodSnapshot): Trouble[] {
  if (s.removed) return [];
  const out: Trouble[] = [];
  const word = s.statusWord.basis === 'unknown' ? '' : s.statusWord.value;
  const open = s.backoffs.find((b) => b.kind === 'container' && b.outcome.kind !== 'restarted');
  if (open)
    out.push({
      kind: 'back-off',
      words: `${word === 'Error' ? 'Error' : 'CrashLoopBackOff'}: ${open.container}, back-off ${open.delayS}s`,
      since: open.since,
      from: open.from,
    });
  else if (word === 'CrashLoopBackOff')
    out.push({
      kind: 'back-off',
      words: 'CrashLoopBackOff',
      since: s.lastSeen,
      ...(s.statusWord.basis !== 'unknown' && s.statusWord.from ? { from: s.statusWord.from } : {}),
    });
  const image = s.backoffs.find((b) => b.kind === 'image' && b.outcome.kind !== 'restarted');
  if (IMAGE_WORDS.has(word) || image)
    out.push({
      kind: 'image',
      words: `${IMAGE_WORDS.has(word) ? word : 'ImagePullBackOff'}${image ? `: ${image.container}` : ''}`,
      since: image?.since ?? s.lastSeen,
      ...(image ? { from: image.from } : {}),
    });
  const sync = s.syncError;
  if (sync && !WAITING_ERRORS.test(sync.error))
    out.push({
      kind: 'sync',
      words: `sync failed${sync.count > 1 ? ` ×${sync.count}` : ''}: ${sync.error}`,
      since: sync.at,
      from: sync.from,
    });
  for (const p of s.probes)
    if (p.result === 'Failure')
      out.push({
        kind: 'probe',
        words: `${p.probe} probe failing${p.container ? `: ${p.container}` : ''}${p.count > 1 ? ` ×${p.count}` : ''}`,
        since: p.since,
        from: p.from,
      });
  if (s.deletedAt !== undefined) {
    const deadline = s.grace?.deadline ?? s.deletedAt + DEFAULT_GRACE_S * 1000;
    if (s.asOf > deadline)
      out.push({
        kind: 'terminating',
        words: `Terminating ${seconds(s.asOf - s.deletedAt)}, ${seconds(s.asOf - deadline)} past its grace deadline${s.grace ? '' : ` (the default ${DEFAULT_GRACE_S}s grace)`}`,
        since: s.deletedAt,
        ...(s.grace ? { from: s.grace.from } : {}),
      });
  }
  return out;
}
