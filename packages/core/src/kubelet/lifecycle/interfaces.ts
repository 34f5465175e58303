/**
 * Pod admission (pkg/kubelet/lifecycle/interfaces.go): before a new pod reaches its pod worker,
 * HandlePodAdditions asks each admit handler in turn; the first refusal rejects the pod.
 */
import type { Pod } from '../../api/v1.ts';

/** What a handler decides on: the pod, and the pods already admitted and still active on the node. */
export interface PodAdmitAttributes {
  pod: Pod;
  otherPods: readonly Pod[];
}

/** admit, or not with a one-word reason (the Event's and the status's reason) and a sentence. */
export type PodAdmitResult = { admit: true } | { admit: false; reason: string; message: string };

/**
 * PodAdmitHandler: called on the sync loop for each added pod, so it must decide at once, from memory,
 * without blocking.
 */
export interface PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult;
}
