import type { Pod } from '../api/v1.ts';
import type { PodRef } from '../events/trace.ts';

/** `namespace/name`, the form traces and klog.KObj use. */
function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
}

/** kubecontainer.GetPodFullName: `name_namespace`. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace ?? 'default'}`;
}

export function podRef(pod: Pod): PodRef {
  return { podUID: pod.metadata.uid ?? '', pod: podKey(pod) };
}

export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}
