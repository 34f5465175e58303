/**
 * GetPods' grouping (kuberuntime_manager.go GetPods): ListPodSandbox and ListContainers answers → one
 * RuntimePod per pod UID, sandboxes first, then containers (pod name and namespace from the container's
 * labels), newest pod first. A pod is `managed` when every sandbox and container of it carries the
 * ownership label.
 *
 * The relist runs this every second over every container of the node. The CRI client hands out the same
 * frozen object for an item that did not change (cri/list-codec.ts), so what is derived from a frozen item
 * (labels parsed, times converted) is kept per item object and the derived entries are frozen and shared
 * between listings: an unchanged container yields the very same RuntimeContainer, which lets the PLEG
 * see at a glance that a pod did not change, and an unchanged listing yields the very same (frozen)
 * RuntimePods. Items that are not frozen are converted every time. Callers must not mutate what they get.
 */
import type { Container, PodSandbox } from '../../cri/types.ts';
import { nsToMs } from '../../cri/types.ts';
import type { RuntimeContainer, RuntimePod, RuntimeSandbox } from '../container/runtime.ts';
import { containerState, sandboxState } from './convert.ts';
import { getContainerInfoFromAnnotations, getContainerInfoFromLabels, isManaged } from './labels.ts';

const RECENT_LISTINGS = 2;

interface Derived<T> {
  uid: string;
  name: string;
  namespace: string;
  entry: T;
  managed: boolean;
}

export class RuntimePodGrouper {
  private readonly sandboxes = new WeakMap<PodSandbox, Derived<RuntimeSandbox>>();
  private readonly containers = new WeakMap<Container, Derived<RuntimeContainer>>();
  /** The last listings of frozen items and their pods (relist's of everything, housekeeping's of running). */
  private recent: { sandboxes: Set<PodSandbox>; containers: Set<Container>; pods: RuntimePod[] }[] = [];

  constructor(private readonly ownershipLabel: string) {}

  /**
   * The runtime pods of one listing; items without metadata are skipped, as the kubelet does. A listing of
   * the very same frozen items as one of the last two, in any order (containerd lists its stores in map
   * order, which changes from call to call), yields that listing's (frozen) pods again.
   */
  group(sandboxes: readonly PodSandbox[], containers: readonly Container[]): RuntimePod[] {
    for (const r of this.recent) {
      if (sameSet(r.sandboxes, sandboxes) && sameSet(r.containers, containers)) return [...r.pods];
    }
    const pods = this.build(sandboxes, containers);
    if (sandboxes.every(Object.isFrozen) && containers.every(Object.isFrozen)) {
      for (const p of pods) {
        Object.freeze(p.containers);
        Object.freeze(p.sandboxes);
        Object.freeze(p);
      }
      this.recent.unshift({
        sandboxes: new Set(sandboxes),
        containers: new Set(containers),
        pods: [...pods],
      });
      this.recent.length = Math.min(this.recent.length, RECENT_LISTINGS);
    }
    return pods;
  }

  private build(sandboxes: readonly PodSandbox[], containers: readonly Container[]): RuntimePod[] {
    const pods = new Map<string, RuntimePod>();
    const podFor = (d: Derived<unknown>) => {
      let p = pods.get(d.uid);
      if (!p) {
        p = {
          id: d.uid,
          name: d.name,
          namespace: d.namespace,
          createdAt: 0,
          containers: [],
          sandboxes: [],
          managed: true,
        };
        pods.set(d.uid, p);
      }
      return p;
    };
    for (const s of sandboxes) {
      if (!s.metadata) continue;
      const d = this.sandbox(s);
      const p = podFor(d);
      p.sandboxes.push(d.entry);
      p.createdAt = d.entry.createdAt;
      p.managed &&= d.managed;
    }
    for (const c of containers) {
      if (!c.metadata) continue;
      const d = this.container(c);
      const p = podFor(d);
      p.containers.push(d.entry);
      p.managed &&= d.managed;
    }
    return [...pods.values()].sort((a, b) => b.createdAt - a.createdAt);
  }

  private sandbox(s: PodSandbox): Derived<RuntimeSandbox> {
    const hit = this.sandboxes.get(s);
    if (hit) return hit;
    const m = s.metadata as NonNullable<PodSandbox['metadata']>;
    const d: Derived<RuntimeSandbox> = {
      uid: m.uid,
      name: m.name,
      namespace: m.namespace,
      entry: { id: s.id, state: sandboxState(s.state), createdAt: nsToMs(s.created_at), attempt: m.attempt },
      managed: isManaged(s.labels, this.ownershipLabel),
    };
    if (Object.isFrozen(s)) {
      Object.freeze(d.entry);
      this.sandboxes.set(s, d);
    }
    return d;
  }

  private container(c: Container): Derived<RuntimeContainer> {
    const hit = this.containers.get(c);
    if (hit) return hit;
    const l = getContainerInfoFromLabels(c.labels);
    const d: Derived<RuntimeContainer> = {
      uid: l.podUID,
      name: l.podName,
      namespace: l.podNamespace,
      entry: {
        id: c.id,
        name: l.containerName || (c.metadata?.name ?? ''),
        image: c.image?.image ?? '',
        imageRef: c.image_ref,
        hash: getContainerInfoFromAnnotations(c.annotations).hash,
        state: containerState(c.state),
        createdAt: nsToMs(c.created_at),
      },
      managed: isManaged(c.labels, this.ownershipLabel),
    };
    if (Object.isFrozen(c)) {
      Object.freeze(d.entry);
      this.containers.set(c, d);
    }
    return d;
  }
}

/** Whether a listing holds exactly the items of an earlier one (items are distinct; order aside). */
function sameSet<T>(earlier: ReadonlySet<T>, now: readonly T[]): boolean {
  if (earlier.size !== now.length) return false;
  for (const x of now) if (!earlier.has(x)) return false;
  return true;
}
