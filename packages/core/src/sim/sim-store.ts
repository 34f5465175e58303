import type {
  ContainerEventResponse,
  ContainerEventStream,
  ContainerFilter,
  PodSandboxFilter,
} from '../cri/types.ts';
import type { ContainerRecord, SandboxRecord } from './sim-state.ts';

interface Subscriber {
  onEvent: (ev: ContainerEventResponse) => void;
  onEnd: (err?: Error) => void;
}

/**
 * The simulated node's records (sandboxes, containers, their reserved names and per-pod indexes) and the
 * container event fan-out. A part SimRuntime owns and shares with its lifecycle part (sim-lifecycle.ts);
 * only those two write it. Nothing here blocks: subscribers are called synchronously by publish.
 */
export class SimStore {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  /** Reserved names → owning id, as containerd's name index. */
  readonly sandboxNames = new Map<string, string>();
  readonly containerNames = new Map<string, string>();
  /** CNI readiness: false makes RunPodSandbox fail for pod-network sandboxes (a fault) */
  networkReady = true;
  /** Called after every change of the records and every published event (the node's state file). */
  onChange: () => void = () => undefined;
  private readonly subscribers = new Set<Subscriber>();
  /** Indexes over the maps above (insertion order kept), so per-pod lookups do not scan the node. */
  private readonly containersBySandbox = new Map<string, Set<ContainerRecord>>();
  private readonly containersByPod = new Map<string, Set<ContainerRecord>>();
  private readonly sandboxesByPod = new Map<string, Set<SandboxRecord>>();

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...(this.containersBySandbox.get(sandboxId) ?? [])];
  }

  // --- records and their indexes -----------------------------------------------------------------------

  addSandbox(sb: SandboxRecord): void {
    this.sandboxes.set(sb.id, sb);
    this.sandboxNames.set(sb.name, sb.id);
    addTo(this.sandboxesByPod, podUIDOf(sb.config.labels), sb);
  }

  dropSandbox(sb: SandboxRecord): void {
    this.sandboxes.delete(sb.id);
    this.sandboxNames.delete(sb.name);
    removeFrom(this.sandboxesByPod, podUIDOf(sb.config.labels), sb);
    this.onChange();
  }

  addContainer(c: ContainerRecord): void {
    this.containers.set(c.id, c);
    this.containerNames.set(c.name, c.id);
    addTo(this.containersBySandbox, c.sandboxId, c);
    addTo(this.containersByPod, podUIDOf(c.config.labels), c);
  }

  dropContainer(c: ContainerRecord): void {
    this.containers.delete(c.id);
    this.containerNames.delete(c.name);
    removeFrom(this.containersBySandbox, c.sandboxId, c);
    removeFrom(this.containersByPod, podUIDOf(c.config.labels), c);
    this.onChange();
  }

  /** The sandboxes a filter can match (in creation order), narrowed by id or pod-UID label when given. */
  sandboxCandidates(filter: PodSandboxFilter | undefined): Iterable<SandboxRecord> {
    if (filter?.id) {
      const sb = this.sandboxes.get(filter.id);
      return sb ? [sb] : [];
    }
    const uid = filter?.label_selector?.[POD_UID_LABEL];
    if (uid !== undefined) return this.sandboxesByPod.get(uid) ?? [];
    return this.sandboxes.values();
  }

  /** The containers a filter can match (in creation order), narrowed by id, sandbox or pod-UID label. */
  containerCandidates(filter: ContainerFilter | undefined): Iterable<ContainerRecord> {
    if (filter?.id) {
      const c = this.containers.get(filter.id);
      return c ? [c] : [];
    }
    if (filter?.pod_sandbox_id) return this.containersBySandbox.get(filter.pod_sandbox_id) ?? [];
    const uid = filter?.label_selector?.[POD_UID_LABEL];
    if (uid !== undefined) return this.containersByPod.get(uid) ?? [];
    return this.containers.values();
  }

  // --- event stream ------------------------------------------------------------------------------------

  subscribe(onEvent: Subscriber['onEvent'], onEnd: Subscriber['onEnd']): ContainerEventStream {
    const sub: Subscriber = { onEvent, onEnd };
    this.subscribers.add(sub);
    return {
      cancel: () => {
        if (this.subscribers.delete(sub)) sub.onEnd();
      },
    };
  }

  publish(ev: ContainerEventResponse): void {
    for (const s of [...this.subscribers]) s.onEvent(ev);
    this.onChange();
  }

  /** Ends every open stream with an error (the runtime went away). */
  breakStreams(err: Error): void {
    const subs = [...this.subscribers];
    this.subscribers.clear();
    for (const s of subs) s.onEnd(err);
  }
}

/** The kubelet's pod-UID label (labels.ts KubernetesPodUIDLabel), the selector of every per-pod list. */
const POD_UID_LABEL = 'io.kubernetes.pod.uid';

function podUIDOf(labels: Record<string, string> | undefined): string {
  return labels?.[POD_UID_LABEL] ?? '';
}

function addTo<T>(index: Map<string, Set<T>>, key: string, value: T): void {
  const set = index.get(key);
  if (set) set.add(value);
  else index.set(key, new Set([value]));
}

function removeFrom<T>(index: Map<string, Set<T>>, key: string, value: T): void {
  const set = index.get(key);
  if (set?.delete(value) && set.size === 0) index.delete(key);
}
