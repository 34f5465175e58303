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

/** (an UPDATE's list adds `:DeletionTimestamp=<RFC 3339>` to a pod being deleted, format.PodsWithDeletionTimestamps) */
const FULL = /^([^_\s"(]+)_([^_\s"(]+)(?:\(([^)\s]*)\))?(?::DeletionTimestamp=\S*)?$/;

/**
 * A namespace's or a pod's name as the API server allows it (a DNS label or subdomain: lower-case letters,
 * digits, `-` and `.`, a letter or digit at each end). A name cut by a pager (`cert>`), an ellipsis (`cert…`,
 * `cert...`) or a column separator is none: a line cut inside a name names no pod.
 */
const NAME = /^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$/;

/** a pod's or namespace's name, whole (NAME) */
export function isPodName(name: string): boolean {
  return NAME.test(name);
}

/** `ns/name` with both names whole (NAME) */
export function isPodRef(ref: string): boolean {
  const slash = ref.indexOf('/');
  return slash > 0 && NAME.test(ref.slice(0, slash)) && NAME.test(ref.slice(slash + 1));
}

/** `name_ns(uid)` → {pod: "ns/name", uid} */
export function fromFullName(s: string): PodName | undefined {
  const m = FULL.exec(s.trim());
  if (!m || !NAME.test(m[1] as string) || !NAME.test(m[2] as string)) return undefined;
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

/** A klog pod reference: "ns/name", or a JSON {"name","namespace"} already flattened to "ns/name"; a cut one is none. */
export function fromRef(s: string | undefined): string | undefined {
  if (!s) return undefined;
  return isPodRef(s) ? s : undefined;
}

/**
 * The pods of a SyncLoop line's `pods=` value, in each form kubelets have written it: klog's list
 * `["ns/a","ns/b"]` (klog.KObjSlice under klog v2.100 on; objects `{"name","namespace"}` in JSON logs), Go's
 * `[ns/a ns/b]` (references printed with %+v, v1.21-v1.26, and KObjSlice under an older klog) and format.Pods'
 * `a_ns(uid), b_ns(uid)` (v1.20, UIDs included).
 */
export function fromRefList(s: string | undefined): PodName[] {
  if (!s) return [];
  if (s.charCodeAt(0) !== 91 /* [ */) return fromFullNameList(s);
  let v: unknown;
  try {
    v = JSON.parse(s);
  } catch {
    // Go's slice: the references between the brackets, separated by blanks
    return s
      .slice(1, s.endsWith(']') ? -1 : undefined)
      .split(/\s+/)
      .filter(isPodRef)
      .map((pod) => ({ pod }));
  }
  if (!Array.isArray(v)) return [];
  const out: PodName[] = [];
  for (const x of v) {
    if (typeof x === 'string' && isPodRef(x)) out.push({ pod: x });
    else if (typeof x === 'object' && x !== null) {
      const o = x as { name?: unknown; namespace?: unknown };
      if (typeof o.name === 'string')
        out.push({ pod: `${typeof o.namespace === 'string' ? o.namespace : ''}/${o.name}` });
    }
  }
  return out;
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
