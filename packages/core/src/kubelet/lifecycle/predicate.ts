/**
 * The predicate admit handler (pkg/kubelet/lifecycle/predicate.go), for the one resource a simulated node
 * counts: pods. The kubelet runs the scheduler's node checks again on its own node (GeneralPredicates), so
 * that a pod bound to a full node is refused there. Its first check is the pod count: with `otherPods`
 * already active, one more must fit in the node's allocatable pods, `--max-pods` (default 110).
 *
 * A refusal has reason OutOfpods and the message of InsufficientResourceError:
 *   Node didn't have enough resource: pods, requested: 1, used: 110, capacity: 110
 * The kubelet turns it into a Warning Event and a Failed status (rejectPod, kubelet-loop.ts).
 *
 * Not modelled: cpu, memory and ephemeral-storage requests against allocatable, extended resources, the
 * node's OS label and taints; the simulated node has no capacity to compare them with.
 */
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from './interfaces.ts';

/** The reasons of predicate.go, named as there (the resource name keeps its lower case). */
export const OutOfPods = 'OutOfpods';

/** InsufficientResourceError.Error(). */
function insufficientResourceMessage(
  resource: string,
  requested: number,
  used: number,
  capacity: number,
): string {
  return `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`;
}

export class PredicateAdmitHandler implements PodAdmitHandler {
  /** `allowedPodNumber`: the node's allocatable pods, KubeletConfiguration.maxPods. */
  constructor(private readonly allowedPodNumber: number) {}

  admit(attrs: PodAdmitAttributes): PodAdmitResult {
    const used = attrs.otherPods.length;
    if (used + 1 > this.allowedPodNumber) {
      return {
        admit: false,
        reason: OutOfPods,
        message: insufficientResourceMessage('pods', 1, used, this.allowedPodNumber),
      };
    }
    return { admit: true };
  }
}
