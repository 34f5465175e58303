import type { AdmittedPod } from './admitted-pod.ts';

/**
 * PodManager (pkg/kubelet/pod/pod_manager.go, basicManager): the kubelet's desired state — the pods the
 * config source has delivered through the sync loop, by UID and by namespace/name. The sync loop's
 * handlers are its only writers (HandlePodAdditions/Updates/Removes); the pod workers, housekeeping and
 * status code read it. A pod absent here has been deleted from the API: only cleanup remains.
 * (Mirror pods do not exist here: every pod comes from the API source.)
 */
export class PodManager {
  private readonly byUID = new Map<string, AdmittedPod>();
  private readonly byFullName = new Map<string, AdmittedPod>();

  getPods(): AdmittedPod[] {
    return [...this.byUID.values()];
  }

  getPodByUID(uid: string): AdmittedPod | undefined {
    return this.byUID.get(uid);
  }

  getPodByName(namespace: string, name: string): AdmittedPod | undefined {
    return this.byFullName.get(key(namespace, name));
  }

  /** AddPod and UpdatePod are the same operation: store the newest object. */
  addPod(pod: AdmittedPod): void {
    this.updatePod(pod);
  }

  updatePod(pod: AdmittedPod): void {
    const uid = pod.metadata.uid;
    const old = this.byUID.get(uid);
    if (old) this.byFullName.delete(key(old.metadata.namespace, old.metadata.name));
    this.byUID.set(uid, pod);
    this.byFullName.set(key(pod.metadata.namespace, pod.metadata.name), pod);
  }

  removePod(pod: AdmittedPod): void {
    const uid = pod.metadata.uid;
    this.byUID.delete(uid);
    const k = key(pod.metadata.namespace, pod.metadata.name);
    if (this.byFullName.get(k)?.metadata.uid === uid) this.byFullName.delete(k);
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
