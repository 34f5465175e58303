import type { Pod } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import type { Clock } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { ConfigOp } from '../../events/trace.ts';
import { podRef } from '../pod-ref.ts';
import { Channel } from '../util/channel.ts';
import { type AdmittedPod, admittedPod } from './admitted-pod.ts';

/** The kubelet's one config source here: pods posted to our API, as the apiserver source would deliver them. */
const ApiserverSource = 'api';

/** kubetypes.PodUpdate: one change to the desired pods of one source. */
export interface PodUpdate {
  op: ConfigOp;
  pods: AdmittedPod[];
  source: string;
}

/**
 * PodConfig (pkg/kubelet/config/config.go + the apiserver source): the store of desired pods as the API
 * holds them, and the `updates` channel the sync loop reads. Called by the HTTP API (add / graceful delete)
 * and by the kubelet itself when a deleted pod has finished (remove, as the apiserver's final delete would).
 *
 *   add(pod)                 → ADD
 *   update(pod)              → UPDATE   (spec/label changes)
 *   delete(uid, grace)       → DELETE   (sets deletionTimestamp + deletionGracePeriodSeconds; the loop
 *                                        treats it as UPDATE, the pod worker sees a terminating pod);
 *                                        with grace 0 also REMOVE at once
 *   finalDelete(uid)         → DELETE (grace 0), REMOVE: the status manager's delete of a finished pod
 *   remove(uid)              → REMOVE   (the object is gone; the pod leaves `pods()`)
 *
 * Never blocks: the channel is unbounded. Each change is traced as `config.update`.
 */
export class PodConfig {
  private readonly store = new Map<string, AdmittedPod>();
  readonly updates = new Channel<PodUpdate>();

  constructor(
    private readonly clock: Clock,
    private readonly trace: TraceRecorder,
  ) {}

  pods(): AdmittedPod[] {
    return [...this.store.values()];
  }

  get(uid: string): AdmittedPod | undefined {
    return this.store.get(uid);
  }

  /** Throws for a pod without metadata.uid or one whose UID is already held. */
  add(input: Pod): void {
    const pod = admittedPod(input);
    const uid = pod.metadata.uid;
    if (this.store.has(uid)) throw new Error(`pod ${uid} already exists`);
    this.store.set(uid, pod);
    this.emit('ADD', pod);
  }

  /** Throws for a pod without metadata.uid or one whose UID is not held. */
  update(input: Pod): void {
    const pod = admittedPod(input);
    const uid = pod.metadata.uid;
    if (!this.store.has(uid)) throw new Error(`pod ${uid} not found`);
    this.store.set(uid, pod);
    this.emit('UPDATE', pod);
  }

  /**
   * A delete as the apiserver's pod registry does it (see gracefulDeletion). `now` defaults to the clock; a
   * caller that has already stored the deleted pod passes the time it computed it at, so both agree to the
   * millisecond; `phase` is the pod's status phase (a Succeeded or Failed pod is deleted with grace 0).
   *
   *   grace > 0 → DELETE (deletionTimestamp, deletionGracePeriodSeconds); the kubelet's status manager
   *               ends it with finalDelete once the pod has terminated;
   *   grace 0   → DELETE with grace 0, then REMOVE at once: the object is gone while the kubelet still
   *               kills the containers (with its minimum grace, calculateEffectiveGracePeriod);
   *   a pod already deleted with grace 0 → REMOVE only; a grace not shorter than the pending one → nothing.
   *
   * Returns false for an unknown UID.
   */
  delete(uid: string, gracePeriodSeconds?: number, now = this.clock.now(), phase?: string): boolean {
    const old = this.store.get(uid);
    if (!old) return false;
    if (old.metadata.deletionGracePeriodSeconds === 0) {
      this.remove(uid);
      return true;
    }
    const pod = gracefulDeletion(old, gracePeriodSeconds, now, phase);
    if (!pod) return true;
    this.store.set(uid, pod);
    this.emit('DELETE', pod);
    if (pod.metadata.deletionGracePeriodSeconds === 0) this.remove(uid);
    return true;
  }

  /**
   * The status manager's final delete of a pod whose worker has finished (status_manager.go: canBeDeleted,
   * then Delete with grace 0 and the pod's UID as precondition): a second DELETE, with grace 0, then REMOVE.
   * Only for a pod that carries a deletionTimestamp; returns whether the pod was removed.
   */
  finalDelete(uid: string): boolean {
    if (!this.store.get(uid)?.metadata.deletionTimestamp) return false;
    return this.delete(uid, 0);
  }

  remove(uid: string): void {
    const pod = this.store.get(uid);
    if (!pod) return;
    this.store.delete(uid);
    this.emit('REMOVE', pod);
  }

  private emit(op: ConfigOp, pod: AdmittedPod): void {
    this.trace.record({ type: 'config.update', op, source: ApiserverSource, ...podRef(pod) });
    this.updates.trySend({ op, pods: [pod], source: ApiserverSource });
  }
}

/**
 * The pod as a graceful delete at `now` leaves it, as the apiserver computes it (the pod strategy's
 * CheckGracefulDelete, then rest.BeforeDelete): the grace is the one asked for, else the spec's
 * terminationGracePeriodSeconds, else 30; a pod whose phase is Succeeded or Failed is deleted with 0.
 * deletionTimestamp = now + grace. A pod already being deleted only takes a shorter grace period, counted
 * from when its deletion was first asked (old deletionTimestamp - old grace + new grace): undefined when the
 * delete changes nothing. Pure: PodConfig.delete and the server's durable write path (which stores the
 * result before the engine sees the delete) both use it.
 */
export function gracefulDeletion<P extends Pod>(
  old: P,
  gracePeriodSeconds: number | undefined,
  now: number,
  phase?: string,
): P | undefined {
  let grace = Math.max(0, gracePeriodSeconds ?? old.spec.terminationGracePeriodSeconds ?? 30);
  if (phase === 'Succeeded' || phase === 'Failed') grace = 0;
  const prev = old.metadata.deletionGracePeriodSeconds;
  const prevAt = old.metadata.deletionTimestamp;
  if (prev !== undefined && grace >= prev) return undefined;
  const from = prev !== undefined && prevAt ? Date.parse(prevAt) - prev * 1000 : now;
  return {
    ...old,
    metadata: {
      ...old.metadata,
      deletionTimestamp: rfc3339(from + grace * 1000),
      deletionGracePeriodSeconds: grace,
    },
  };
}
