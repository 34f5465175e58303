/**
 * What the HTTP layer needs from the engine: the Kubelet facade's read and write methods, nothing more.
 * The Kubelet satisfies it structurally; unit tests pass a small fake.
 *
 * Every method is called from a request handler on the event loop, so each must return at once: addPod, updatePod and
 * deletePod hand the pod to the sync loop and return before any runtime call is made.
 */
import type { AdmittedPod } from '@syncscope/core';
import type { Event, Pod } from '@syncscope/core/api';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import type { RuntimePod } from '@syncscope/core/kubelet/container/runtime';

export interface Engine {
  /** A validated, defaulted pod with uid, namespace and creationTimestamp set. */
  addPod(pod: Pod): void;
  /** A replaced pod (PUT/PATCH), same uid, already checked as an update the API allows. */
  updatePod(pod: Pod): void;
  /**
   * Delete: sets deletionTimestamp; the pod leaves getPods() once its worker has terminated it (or at once
   * with grace 0, or when its phase is terminal).
   */
  deletePod(uid: string, gracePeriodSeconds?: number): void;
  /** The pods it holds: uid, name and namespace are always set (AdmittedPod). */
  getPods(): AdmittedPod[];
  getPod(namespace: string, name: string): AdmittedPod | undefined;
  getPodByUID(uid: string): AdmittedPod | undefined;
  getEvents(): Event[];
  nodeInfo(): NodeInfo;
  /** Every pod the runtime has, ours (`managed`) and others'; read-only. */
  listRuntimePods?(): Promise<RuntimePod[]>;
  /** Why writes are refused now (the disk the trace and pods are kept on); undefined while they are taken. */
  storageFailure?(): string | undefined;
}
