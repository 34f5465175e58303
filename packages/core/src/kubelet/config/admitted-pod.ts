import type { ObjectMeta, Pod } from '../../api/v1.ts';

/**
 * A pod the engine holds: it passed validation and defaulting, so its identity is known. PodConfig makes
 * them (admittedPod) when the API adds or replaces a pod; the pod manager, the pod workers, the sync loop
 * and the Kubelet facade's reads pass them on, so no reader has to guess the UID, name or namespace.
 */
export type AdmittedPod = Pod & {
  metadata: ObjectMeta & { uid: string; name: string; namespace: string };
};

/**
 * The pod as the engine holds it. A pod without metadata.uid is refused (the API's defaulting always sets
 * one, so this is a caller's bug); a missing namespace is the default one, as the API fills it. Returns the
 * same object when nothing needed filling in.
 */
export function admittedPod(pod: Pod): AdmittedPod {
  const { uid, namespace } = pod.metadata;
  if (!uid) throw new Error('pod has no metadata.uid');
  if (isAdmitted(pod)) return pod;
  return { ...pod, metadata: { ...pod.metadata, uid, namespace: namespace || 'default' } };
}

function isAdmitted(pod: Pod): pod is AdmittedPod {
  return !!pod.metadata.uid && !!pod.metadata.namespace;
}
