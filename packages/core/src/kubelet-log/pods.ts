/**
 * How kubelet messages name pods, and the per-node register of what they said: the glog full name
 * `name_namespace(uid)` (kubecontainer.GetPodFullName plus the UID, format.Pod), klog's `namespace/name`
 * (klog.KObj) and, in JSON logs, `{"name":…,"namespace":…}`. A later line may give the UID of a pod an
 * earlier line named only by name (static pods: "SyncLoop ADD" names them, the PLEG event gives the UID).
 */
export interface PodName {
  /** namespace/name */
  pod: string;
  uid?: string;
}

const FULL = /^([^_\s"(]+)_([^_\s"(]+)(?:\(([^)\s]*)\))?$/;

/** `name_ns(uid)` → {pod: "ns/name", uid} */
export function fromFullName(s: string): PodName | undefined {
  const m = FULL.exec(s.trim());
  if (!m) return undefined;
  return m[3] ? { pod: `${m[2]}/${m[1]}`, uid: m[3] } : { pod: `${m[2]}/${m[1]}` };
}

/** The old `"a_ns(uid), b_ns(uid)"` list of SyncLoop lines (format.Pods), already unquoted. */
export function fromFullNameList(s: string): PodName[] {
  const out: PodName[] = [];
  for (const part of s.split(', ')) {
    if (part === '') continue;
    const p = fromFullName(part);
    if (p) out.push(p);
  }
  return out;
}

/** A klog pod reference: "ns/name", or a JSON {"name","namespace"} already flattened to "ns/name". */
export function fromRef(s: string | undefined): string | undefined {
  if (!s) return undefined;
  return s.includes('/') ? s : undefined;
}

/** `pods=["a/b","c/d"]` in text or JSON form. */
export function fromRefList(s: string | undefined): string[] {
  if (!s) return [];
  try {
    const v = JSON.parse(s) as unknown;
    if (!Array.isArray(v)) return [];
    const out: string[] = [];
    for (const x of v) {
      if (typeof x === 'string' && x.includes('/')) out.push(x);
      else if (typeof x === 'object' && x !== null) {
        const o = x as { name?: unknown; namespace?: unknown };
        if (typeof o.name === 'string')
          out.push(`${typeof o.namespace === 'string' ? o.namespace : ''}/${o.name}`);
      }
    }
    return out;
  } catch {
    return [];
  }
}

/** What one node's log said about its pods. */
export class PodRegister {
  private readonly uidByPod = new Map<string, string>();
  private readonly podByUid = new Map<string, string>();

  note(pod: string | undefined, uid: string | undefined): void {
    if (pod && uid) {
      this.uidByPod.set(pod, uid);
      this.podByUid.set(uid, pod);
    }
  }

  uidOf(pod: string): string | undefined {
    return this.uidByPod.get(pod);
  }

  podOf(uid: string): string | undefined {
    return this.podByUid.get(uid);
  }

  /** "Killing unwanted pod" names a pod without its namespace: the one pod of that name, if only one. */
  byBareName(name: string): PodName | undefined {
    let found: PodName | undefined;
    for (const [pod, uid] of this.uidByPod) {
      if (pod.endsWith(`/${name}`)) {
        if (found) return undefined;
        found = { pod, uid };
      }
    }
    return found;
  }

  get size(): number {
    return this.podByUid.size;
  }
}
